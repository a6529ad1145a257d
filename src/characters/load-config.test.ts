import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { InvalidConfigError } from '../shared/errors.js'
import { createLogger } from '../shared/logger.js'
import {
  type ConfigCheck,
  defaultConfig,
  loadConfig,
  parseConfig,
  parseConfigFile,
  parseConfigText,
} from './load-config.js'

const silent = createLogger({ level: 'silent' })
// The content of a config file: its `${VAR}` are read from `environment`.
const parse = (raw: unknown, environment: Record<string, string> = {}) =>
  parseConfigFile(raw, { environment, logger: silent })

function issuesOf(action: () => unknown) {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidConfigError)
    return (error as InvalidConfigError).issues
  }
  throw new Error('expected an InvalidConfigError')
}

async function writeTemp(text: string) {
  const folder = await mkdtemp(join(tmpdir(), 'charpipe-config-'))
  const path = join(folder, 'config.yaml')
  await writeFile(path, text)
  return path
}

describe('defaults (PROTOCOL.md config.yaml)', () => {
  it('fills every section when nothing is given', () => {
    const config = defaultConfig()
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8080, token: '' })
    expect(config.llm).toMatchObject({
      provider: 'mock',
      temperature: 0.8,
      max_tokens: 1024,
      timeout_ms: 20000,
      max_retries: 2,
    })
    expect(config.llm.function_calling).toBe(true)
    expect(config.openclaw).toEqual({
      url: 'http://localhost:18789',
      token: '',
      session_key: 'main',
      agent_id: '',
      timeout_ms: 120000,
    })
    expect(config.character.reply_format).toBe('auto')
    expect(config.character.default_emotion).toBe('平静')
    expect(config.character.emotion_aliases.happy).toBe('开心')
    expect(config.character.user_emotion_map.happy).toBe('愉快')
    expect(config.history).toEqual({
      store: 'sqlite',
      max_turns: 10,
      continue_without_store: false,
      reset: { policy: 'none', max_turns: 0, max_tokens: 0 },
    })
    expect(config.conversation.on_new_input).toBe('interrupt')
    expect(config.memory).toMatchObject({ enabled: true, top_k: 3, extract: false, embeddings: null })
    expect(config.sentence.speech_filters).toEqual(['markdown'])
    expect(config.storage.sqlite_path).toBe('./data/charpipe.db')
  })

  it('Scenario: 未配置时默认为空列表 — injected_history defaults to []', () => {
    expect(parse({ character: { name: '小雪' } }).config.character.injected_history).toEqual([])
  })

  it('Scenario: 使用默认配置连接本地 Gateway — openclaw defaults when the section is absent', () => {
    const { config } = parse({ llm: { provider: 'openclaw' } })
    expect(config.openclaw.url).toBe('http://localhost:18789')
    expect(config.openclaw.session_key).toBe('main')
    expect(config.openclaw.token).toBe('')
  })

  it('keeps inner defaults when a section is given partly', () => {
    const { config } = parse({ llm: { provider: 'deepseek', api_key: 'sk-test-123456' } })
    expect(config.llm.timeout_ms).toBe(20000)
    expect(config.llm.fallbacks).toEqual([])
  })
})

describe('validation errors name the field path', () => {
  it('lists several problems at once', () => {
    const issues = issuesOf(() =>
      parse({
        server: { port: 'eighty' },
        llm: { temperature: 5, modle: 'x' },
        character: { reply_format: 'xml', injected_history: [{ role: 'system', content: 'hi' }] },
      }),
    )
    const paths = issues.map((issue) => issue.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        'server.port',
        'llm.temperature',
        'llm.modle',
        'character.reply_format',
        'character.injected_history.0.role',
      ]),
    )
    expect(issues.find((issue) => issue.path === 'llm.modle')?.message).toBe(
      'unknown field (did you mean `model`?)',
    )
  })

  it('runs the cross-field and extra checks on the rest when the schema fails', () => {
    const check: ConfigCheck = (config) =>
      config.character.name === '小雪' ? [{ path: 'character.name', message: 'checked' }] : []
    const issues = issuesOf(() =>
      parseConfig(
        {
          llm: { provider: 'deepseak', temperature: 'hot', fallbacks: [{ provider: 'x', modle: 'y' }] },
          character: { name: '小雪', reply_format: 'jsonn' },
        },
        { logger: silent, checks: [check] },
      ),
    )
    expect(issues).toEqual([
      { path: 'llm.temperature', message: expect.any(String) },
      { path: 'llm.fallbacks.0.modle', message: 'unknown field (did you mean `model`?)' },
      {
        path: 'character.reply_format',
        message: '"jsonn" is not one of json, prefix, auto, plain (did you mean `json`?)',
      },
      {
        path: 'llm.base_url',
        message: expect.stringContaining(
          'provider "deepseak" is not in the registry (did you mean `deepseek`?)',
        ),
      },
      { path: 'llm.fallbacks.0.base_url', message: expect.stringContaining('provider "x"') },
      { path: 'character.name', message: 'checked' },
    ])
  })

  it('Scenario: 注册表中无此 Provider — an unknown provider is OpenAI-compatible and needs a base_url', () => {
    const issues = issuesOf(() => parse({ llm: { provider: 'my-vllm' } }))
    expect(issues).toEqual([
      { path: 'llm.base_url', message: expect.stringMatching(/not in the registry.*OpenAI-compatible/) },
    ])
    expect(
      parse({ llm: { provider: 'my-vllm', base_url: 'http://127.0.0.1:8000/v1' } }).config.llm.provider,
    ).toBe('my-vllm')
  })

  it('checks fallbacks and the default emotion against the emotion list', () => {
    const issues = issuesOf(() =>
      parse({ llm: { fallbacks: [{ provider: 'custom' }] }, character: { default_emotion: '困惑' } }),
    )
    expect(issues.map((issue) => issue.path)).toEqual([
      'llm.fallbacks.0.base_url',
      'character.default_emotion',
    ])
  })

  it('a reset policy needs its limit', () => {
    expect(issuesOf(() => parse({ history: { reset: { policy: 'tokens' } } }))).toEqual([
      { path: 'history.reset.max_tokens', message: expect.stringMatching(/greater than 0/) },
    ])
    expect(
      parse({ history: { reset: { policy: 'turns', max_turns: 20 } } }).config.history.reset.max_turns,
    ).toBe(20)
  })

  it('rejects YAML syntax errors with a line number', () => {
    const issues = issuesOf(() => parseConfigText('llm:\n  provider: [unclosed\n'))
    expect(issues[0]?.path).toMatch(/^line \d+, column \d+$/)
  })

  it('rejects a file that is not a mapping', () => {
    expect(issuesOf(() => parseConfigText('- just\n- a list\n'))[0]?.message).toMatch(/mapping of sections/)
  })
})

describe('soft warnings (seed 000: injected_history 格式约束)', () => {
  it('Scenario: 配置后正确加载为列表 — an even, alternating list loads without warnings', () => {
    const injected = [
      { role: 'user', content: '你是谁？' },
      { role: 'assistant', content: '我是小雪呀～' },
    ]
    const result = parse({ character: { injected_history: injected } })
    expect(result.config.character.injected_history).toEqual(injected)
    expect(result.warnings).toEqual([])
  })

  it('Scenario: 奇数条时输出警告 — an odd count warns and still loads', () => {
    const lines: string[] = []
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => lines.push(line) } })
    const result = parseConfig(
      {
        character: {
          injected_history: [
            { role: 'user', content: 'a' },
            { role: 'assistant', content: 'b' },
            { role: 'user', content: 'c' },
          ],
        },
      },
      { logger },
    )
    expect(result.config.character.injected_history).toHaveLength(3)
    expect(result.warnings.map((warning) => warning.path)).toEqual(['character.injected_history'])
    expect(lines.some((line) => line.includes('"level":40') && line.includes('injected_history'))).toBe(true)
  })

  it('warns when roles do not alternate', () => {
    const { warnings } = parse({
      character: {
        injected_history: [
          { role: 'assistant', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
    })
    expect(warnings.map((warning) => warning.path)).toEqual(['character.injected_history.0.role'])
  })

  it('warns (not refuses) an Anthropic key without the sk-ant- prefix', () => {
    const { config, warnings } = parse({ llm: { provider: 'anthropic', api_key: 'proxy-key-123' } })
    expect(config.llm.api_key).toBe('proxy-key-123')
    expect(warnings).toEqual([{ path: 'llm.api_key', message: expect.stringMatching(/sk-ant-/) }])
    expect(parse({ llm: { provider: 'anthropic', api_key: 'sk-ant-abc123' } }).warnings).toEqual([])
  })
})

describe('${ENV_VAR} substitution', () => {
  it('replaces references from the environment, with fallbacks', () => {
    const { config } = parse(
      { llm: { provider: 'deepseek', api_key: '${DEEPSEEK_KEY}', model: '${MODEL:-deepseek-chat}' } },
      { DEEPSEEK_KEY: 'sk-live-abcdef' },
    )
    expect(config.llm.api_key).toBe('sk-live-abcdef')
    expect(config.llm.model).toBe('deepseek-chat')
  })

  it('an unset variable becomes empty and is reported by path', () => {
    const { config, warnings } = parse({ llm: { provider: 'deepseek', api_key: '${MISSING_KEY}' } })
    expect(config.llm.api_key).toBe('')
    expect(warnings).toEqual([{ path: 'llm.api_key', message: expect.stringContaining('MISSING_KEY') }])
  })

  it('a variable named after an Object.prototype member is unset, not the member', () => {
    // The variable names come from the config file: `toString` names no environment variable.
    const { config, warnings } = parse({ character: { persona: 'a${toString}b', scenario: '${__proto__}' } })
    expect(config.character.persona).toBe('ab')
    expect(config.character.scenario).toBe('')
    expect(warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining('toString'),
      expect.stringContaining('__proto__'),
    ])
    const fromProcess = parseConfigFile(
      { character: { persona: '${valueOf:-calm}', scenario: '${constructor}' } },
      { logger: silent },
    )
    expect(fromProcess.config.character.persona).toBe('calm')
    expect(fromProcess.config.character.scenario).toBe('')
  })

  it('happens once: a parsed config parsed again keeps `${VAR}` text literal', () => {
    process.env.CHARPIPE_PARSE_ONCE_SECRET = 'from-the-environment'
    try {
      const file = parse({ character: { persona: '$${CHARPIPE_PARSE_ONCE_SECRET}' } }).config
      expect(file.character.persona).toBe('${CHARPIPE_PARSE_ONCE_SECRET}')
      const again = parseConfig(file, { logger: silent }).config
      expect(again.character.persona).toBe('${CHARPIPE_PARSE_ONCE_SECRET}')
      // An object given to createCharpipe is not a file either.
      const given = parseConfig(
        { character: { persona: 'I know ${CHARPIPE_PARSE_ONCE_SECRET}' } },
        { logger: silent },
      )
      expect(given.config.character.persona).toBe('I know ${CHARPIPE_PARSE_ONCE_SECRET}')
    } finally {
      delete process.env.CHARPIPE_PARSE_ONCE_SECRET
    }
  })
})

describe('loadConfig', () => {
  it('uses the defaults (provider mock) when the file does not exist', async () => {
    const result = await loadConfig(join(tmpdir(), 'charpipe-no-such-dir', 'config.yaml'), { logger: silent })
    expect(result.fromFile).toBe(false)
    expect(result.config.llm.provider).toBe('mock')
  })

  it('reads YAML and keeps the raw document for writing back', async () => {
    const path = await writeTemp('# my character\ncharacter:\n  name: 小雪\nllm:\n  api_key: ${SOME_KEY}\n')
    const result = await loadConfig(path, { logger: silent, environment: { SOME_KEY: 'k-1234567' } })
    expect(result.config.character.name).toBe('小雪')
    expect(result.config.llm.api_key).toBe('k-1234567')
    expect(result.raw).toEqual({ character: { name: '小雪' }, llm: { api_key: '${SOME_KEY}' } })
  })

  it('an empty file is the defaults', async () => {
    const path = await writeTemp('')
    expect((await loadConfig(path, { logger: silent })).config.llm.provider).toBe('mock')
  })

  it('a file that must exist and does not names a near file', async () => {
    const path = await writeTemp('')
    const named = path.replace(/config\.yaml$/, 'config.yml')
    await expect(loadConfig(named, { logger: silent, required: true })).rejects.toThrow(
      `config file ${named} not found; did you mean ${path}?`,
    )
  })

  it('names the file in the error', async () => {
    const path = await writeTemp('llm:\n  max_tokens: -1\n')
    await expect(loadConfig(path, { logger: silent })).rejects.toThrow(
      new RegExp(`invalid config in ${path}[\\s\\S]*llm.max_tokens`),
    )
  })
})
