/**
 * `charpipe chat`, `preview` and `doctor` run as child processes from source, against the mock model
 * server of this test process.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { cliArguments } from '../support/cli-command.js'
import { readEmptyWorkingFolder } from '../support/empty-working-folder.js'

let server: MockModelServer
let folder: string

beforeAll(async () => {
  server = await startMockModelServer()
  folder = mkdtempSync(join(tmpdir(), 'charpipe-cli-'))
})
afterAll(async () => {
  await server.close()
  rmSync(folder, { recursive: true, force: true })
})
beforeEach(() => server.reset())

function writeConfig(name: string, yaml: string): string {
  const path = join(folder, name)
  writeFileSync(path, yaml)
  return path
}

const openaiConfig = () =>
  writeConfig(
    'openai.yaml',
    `llm: { provider: custom, base_url: "${server.url}/v1", model: m, max_retries: 0 }\nhistory: { store: memory }\nmemory: { enabled: false }\n` +
      `storage: { sqlite_path: "${join(folder, 'data', 'charpipe.db')}" }\n`,
  )

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

function startCli(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; result: Promise<RunResult>; output: () => string } {
  const child = spawn(process.execPath, cliArguments(args), {
    cwd: readEmptyWorkingFolder(),
    env: { ...process.env, CHARPIPE_LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  const result = new Promise<RunResult>((done) => child.on('close', (code) => done({ code, stdout, stderr })))
  return { child, result, output: () => stdout }
}

async function runCli(args: string[], input = '', env: Record<string, string> = {}): Promise<RunResult> {
  const { child, result } = startCli(args, env)
  child.stdin!.end(input)
  return result
}

async function waitForOutput(output: () => string, text: string): Promise<void> {
  while (!output().includes(text)) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('charpipe chat', () => {
  it('answers piped lines one by one, printing sentences with their emotions', async () => {
    server.script([
      { text: '{"emotion": "开心", "text": "你好呀！很高兴见到你。"}' },
      { text: '{"emotion": "难过", "text": "再见了。"}' },
    ])
    const { code, stdout } = await runCli(['chat', '--config', openaiConfig()], '你好\n再见\n')
    expect(code).toBe(0)
    const lines = stdout.split('\n').filter((line) => line.startsWith('['))
    expect(lines).toEqual(['[开心] 你好呀！', '[开心] 很高兴见到你。', '[难过] 再见了。'])
    // The second request carried the first turn as history.
    expect(JSON.stringify(server.requests[1]!.body)).toContain('你好呀！很高兴见到你。')
  })

  it('prints no escape sequence the model writes, and no emotion outside the configured set', async () => {
    server.script([
      {
        text: '{"emotion": "\u001b]0;pwned\u0007", "text": "清屏\u001b[2J\u001b[31m红\u009b1;1H字\u202e反。"}',
      },
      { text: '', status: 400, body: { error: { message: 'bad \u001b[5m blink' } } },
    ])
    const { code, stdout, stderr } = await runCli(['chat', '--config', openaiConfig()], '你好\n再来\n')
    expect(code).toBe(0)
    expect(stdout).toContain('[平静] 清屏[2J[31m红1;1H字反。')
    for (const output of [stdout, stderr]) {
      expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    }
    expect(stderr).toContain('error:')
  })

  it('Ctrl-C interrupts the running reply and the chat goes on', async () => {
    server.script([{ text: '第一句。第二句。第三句。', chunkSize: 4, delayMs: 300 }, { text: '还在。' }])
    const { child, result, output } = startCli(['chat', '--config', openaiConfig()])
    child.stdin!.write('讲个故事\n')
    await waitForOutput(output, '[平静] 第一句。')
    child.kill('SIGINT')
    await waitForOutput(output, '(interrupted)')
    child.stdin!.end('还在吗\n')
    const { code, stdout } = await result
    expect(code).toBe(0)
    expect(stdout).not.toContain('第三句')
    expect(stdout).toContain('[平静] 还在。')
  })

  it('keeps log lines out of the conversation: they go to the log file, summarised in one line', async () => {
    const path = writeConfig(
      'unreachable.yaml',
      'llm: { provider: custom, base_url: "http://127.0.0.1:9/v1", max_retries: 1 }\nhistory: { store: memory }\nmemory: { enabled: false }\n',
    )
    const logFile = join(folder, 'logs', 'chat.log')
    const { code, stdout, stderr } = await runCli(
      ['chat', '--config', path, '--log-file', logFile],
      '你好\n',
      {
        CHARPIPE_LOG_LEVEL: 'info',
      },
    )
    expect(code).toBe(0)
    expect(stdout).toContain(`log ${logFile}`)
    expect(`${stdout}${stderr}`).not.toContain('{"level"')
    expect(stderr).toContain('error: upstream_unreachable: cannot reach http://127.0.0.1:9/v1')
    const summaries = stderr.split('\n').filter((line) => line.startsWith('('))
    expect(summaries).toHaveLength(1)
    expect(summaries[0]).toMatch(
      new RegExp(
        `^\\(2 errors, 1 warning in ${logFile}: cannot reach upstream at http://127\\.0\\.0\\.1:9/v1`,
      ),
    )
    const logged = readFileSync(logFile, 'utf8').trim().split('\n')
    expect(logged.some((line) => / ERROR engine\/providers: cannot reach upstream /.test(line))).toBe(true)
    expect(logged.some((line) => / WARN {2}engine\/providers: retrying /.test(line))).toBe(true)
  })

  it('keeps local commands to itself: /help, /clear, /character and /session never reach the model', async () => {
    const path = writeConfig(
      'two.yaml',
      `llm: { provider: custom, base_url: "${server.url}/v1", model: m, max_retries: 0 }\nhistory: { store: memory }\nmemory: { enabled: false }\n` +
        'characters:\n  mira:\n    name: Mira\n    persona: A guide of Eldoria.\n    greeting: "Welcome, {{user}}!"\n',
    )
    server.script([
      { text: '{"emotion": "开心", "text": "一。"}' },
      { text: '{"emotion": "开心", "text": "二。"}' },
      { text: '{"emotion": "开心", "text": "Three."}' },
      { text: '{"emotion": "开心", "text": "四。"}' },
    ])
    const input = [
      '/help',
      '你好',
      '/clear',
      '再说',
      '/nope',
      '/character mira',
      'Hi',
      '/session other',
      '//slash',
      '/quit',
      'never sent',
    ]
    const { code, stdout } = await runCli(['chat', '--config', path], `${input.join('\n')}\n`)
    expect(code).toBe(0)
    expect(stdout).toContain('/character [ID]')
    expect(stdout).toContain('unknown command /nope')
    expect(stdout).toContain('(session default · character mira)')
    // Mira's greeting opens her new session, in her language, with her language's emotion label.
    expect(stdout).toContain('[calm] Welcome, User!')
    expect(stdout).toContain('(session other · character mira)')
    const sent = server.requests.map((request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages
      return { system: messages[0]!.content, history: messages.slice(1).map((message) => message.content) }
    })
    expect(sent).toHaveLength(4)
    // /clear emptied the session: the second turn carries no history.
    expect(sent[1]!.history).toEqual(['再说'])
    expect(sent[2]!.system).toMatch(/^You are Mira, talking with User\./)
    expect(sent[3]!.history.at(-1)).toBe('/slash')
    expect(JSON.stringify(sent)).not.toContain('never sent')
    expect(JSON.stringify(sent)).not.toContain('/help')
  })

  it('a bad config exits non-zero naming the field', async () => {
    const path = writeConfig('bad.yaml', 'llm: { temperature: 9 }\n')
    const { code, stderr } = await runCli(['chat', '--config', path])
    expect(code).toBe(2)
    expect(stderr).toContain('llm.temperature')
  })
})

describe('charpipe preview', () => {
  it('prints the assembled context for a person, without calling the model', async () => {
    const path = writeConfig(
      'preview.yaml',
      `character: { name: 小雪, persona: 温柔的猫娘 }\nhistory: { store: memory }\nmemory: { enabled: false }\n`,
    )
    const { code, stdout } = await runCli(['preview', '--config', path, '今天', '好累'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^── 1\. system \(system, \d+ tokens\) ──\n你是小雪，正在和用户对话。/)
    expect(stdout).toMatch(/── 2\. user \(input, \d+ tokens\) ──\n今天 好累/)
    expect(stdout).toMatch(/^2 messages, \d+ tokens$/m)
    expect(server.requests).toHaveLength(0)
  })

  it('prints the assembled context as JSON with --json', async () => {
    const path = writeConfig(
      'preview.yaml',
      `character: { name: 小雪, persona: 温柔的猫娘 }\nhistory: { store: memory }\nmemory: { enabled: false }\n`,
    )
    const { code, stdout } = await runCli([
      'preview',
      '--config',
      path,
      '--json',
      '--emotion',
      'happy',
      '今天',
      '好累',
    ])
    expect(code).toBe(0)
    const preview = JSON.parse(stdout) as { messages: { role: string; content: string; source: string }[] }
    expect(preview.messages[0]!.role).toBe('system')
    expect(preview.messages[0]!.content).toContain('温柔的猫娘')
    expect(preview.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('今天 好累'),
    })
    expect(server.requests).toHaveLength(0)
  })

  it('writes readable log lines, or JSON when asked', async () => {
    // A new SQLite database logs its schema migrations.
    const configFor = (name: string) =>
      writeConfig(`${name}.yaml`, `storage: { sqlite_path: "${join(folder, name, 'charpipe.db')}" }\n`)
    const environment = { CHARPIPE_LOG_LEVEL: 'info', CHARPIPE_LOG_FORMAT: '' }
    const readable = await runCli(['preview', '--config', configFor('readable'), 'hi'], '', environment)
    expect(readable.stderr).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}engine\/history: applied history schema migration/m,
    )
    expect(readable.stderr).not.toContain('{"level"')
    const json = await runCli(
      ['preview', '--log-format', 'json', '--config', configFor('json'), 'hi'],
      '',
      environment,
    )
    expect(json.stderr).toMatch(/^\{"level":30,.*"msg":"applied history schema migration"\}$/m)
    const wrong = await runCli(['preview', '--log-format', 'yaml', 'hi'], '', environment)
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--log-format must be json or pretty')
  })

  it('asks for the text when it is missing', async () => {
    const { code, stderr } = await runCli(['preview'])
    expect(code).toBe(2)
    expect(stderr).toContain('TEXT is missing')
  })
})

describe('charpipe doctor', () => {
  it('is healthy when the model answers', async () => {
    server.script({ text: 'ok' })
    const { code, stdout } = await runCli(['doctor', '--config', openaiConfig()])
    expect(stdout).toMatch(/^ok {3}config: .* is valid$/m)
    expect(stdout).toMatch(/^ok {3}provider reachable: /m)
    expect(stdout).toMatch(/^ok {3}model answers: .*"ok"$/m)
    expect(code).toBe(0)
  })

  it('prints each config warning once, as a readable line', async () => {
    server.script({ text: 'ok' })
    const path = writeConfig(
      'warned.yaml',
      `llm: { provider: custom, base_url: "${server.url}/v1", model: m, max_retries: 0 }\n` +
        'character: { injected_history: [{ role: user, content: 你好 }] }\n',
    )
    const { code, stdout, stderr } = await runCli(['doctor', '--config', path], '', {
      CHARPIPE_LOG_LEVEL: 'info',
    })
    expect(code).toBe(0)
    const output = `${stdout}${stderr}`
    expect(output.match(/character\.injected_history/g)).toHaveLength(1)
    expect(stdout).toMatch(/^ {5}warning: character\.injected_history: has 1 entries/m)
    expect(output).not.toContain('{"level"')
  })

  it('fails when the provider cannot be reached', async () => {
    const path = writeConfig(
      'down.yaml',
      'llm: { provider: custom, base_url: "http://127.0.0.1:9/v1", max_retries: 0 }\n',
    )
    const { code, stdout } = await runCli(['doctor', '--config', path])
    expect(stdout).toMatch(/^FAIL provider reachable: cannot reach http:\/\/127\.0\.0\.1:9\/v1/m)
    expect(stdout).toContain('unhealthy')
    expect(code).toBe(1)
  })

  it('explains an OpenClaw 404 as the chatCompletions endpoint being off', async () => {
    server.script({ status: 404, body: 'Not Found' })
    const path = writeConfig(
      'claw.yaml',
      `llm: { provider: openclaw, max_retries: 0 }\nopenclaw: { url: "${server.url}" }\n`,
    )
    const { code, stdout } = await runCli(['doctor', '--config', path])
    expect(stdout).toMatch(/^FAIL model answers: HTTP 404: .*chatCompletions\.enabled/m)
    expect(code).toBe(1)
  })
})
