import { describe, expect, it } from 'vitest'
import { createCharpipe } from '../../engine/create-charpipe.js'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../../testing/create-fake-build-options.js'
import { createFakeProvider } from '../../testing/create-fake-provider.js'
import { makeConfig } from '../../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../../testing/turn-events.js'
import { checkPipelineConfig } from '../check-pipeline-config.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import { applyDisplayRegexRules } from './apply-display-regex-rules.js'

describe('regex config check', () => {
  const check = (processors: Record<string, unknown>, side: 'pipeline' | 'llm' = 'pipeline') =>
    checkPipelineConfig(
      createFakeBuildOptions({
        config: side === 'pipeline' ? { pipeline: { processors } } : { llm: { processors } },
      } as never).config,
    )

  it('reports an invalid pattern with its path', () => {
    const issues = check({ 'regex-processor': { rules: [{ pattern: 'ok' }, { pattern: '(unclosed' }] } })
    expect(issues).toHaveLength(1)
    expect(issues[0]!.path).toBe('pipeline.processors.regex-processor.rules.1.pattern')
    expect(issues[0]!.message).toContain('invalid regular expression')
  })

  it('reports invalid flags and scopes, and model-level entries under llm.processors', () => {
    const issues = check(
      { 'regex-processor': { rules: [{ pattern: 'a', flags: 'gq', scope: 'everywhere' }] } },
      'llm',
    )
    expect(issues.map((issue) => issue.path)).toEqual([
      'llm.processors.regex-processor.rules.0.flags',
      'llm.processors.regex-processor.rules.0.scope',
    ])
  })

  it('refuses what RE2 cannot express, naming the rule and why', () => {
    const issues = check({
      'regex-processor': {
        rules: [
          { pattern: '(a)\\1' },
          { pattern: 'x(?=y)' },
          { pattern: '(?<!a)b' },
          { pattern: 'ok', flags: 'y' },
          { pattern: '(a+)+$' },
        ],
      },
    })
    expect(issues.map((issue) => issue.path)).toEqual([
      'pipeline.processors.regex-processor.rules.0.pattern',
      'pipeline.processors.regex-processor.rules.1.pattern',
      'pipeline.processors.regex-processor.rules.2.pattern',
      'pipeline.processors.regex-processor.rules.3.flags',
    ])
    expect(issues[0]!.message).toContain('backreferences')
    expect(issues[0]!.message).toContain('RE2')
    expect(issues[1]!.message).toContain('lookahead')
    expect(issues[2]!.message).toContain('lookbehind')
    expect(issues[3]!.message).toContain('"y"')
  })

  it('refuses a rule whose program is too large for its cost bound, naming the rule and the size', () => {
    const issues = check({
      'regex-processor': {
        rules: [{ pattern: '(?:[a-z]?){450}[0-9]' }, { pattern: '(?:[a-z]?){900}[0-9]' }],
      },
    })
    expect(issues).toEqual([
      {
        path: 'pipeline.processors.regex-processor.rules.1.pattern',
        message: 'the pattern is too costly (program of 1803 instructions; at most 1000)',
      },
    ])
  })

  it('names an unknown processor id', () => {
    const issues = check({ 'no-such-processor': { enabled: true } })
    expect(issues).toHaveLength(1)
    expect(issues[0]!.path).toBe('pipeline.processors.no-such-processor')
    expect(issues[0]!.message).toContain('unknown processor "no-such-processor"')
  })

  it('checks other processors too (bad depth injection, bad type)', () => {
    const issues = check({
      'injection-assembler': { depth_injections: [{ content: 'x', depth: -1 }] },
      'token-limiter': { safety_margin: 'lots' },
    })
    expect(issues.map((issue) => issue.path)).toEqual([
      'pipeline.processors.injection-assembler.depth_injections.0.depth',
      'pipeline.processors.token-limiter.safety_margin',
    ])
  })

  it('passes the defaults', () => {
    expect(checkPipelineConfig(createFakeBuildOptions().config)).toEqual([])
  })
})

describe('regex-processor', () => {
  it('rewrites input and history by scope, with macros in replacements, and leaves the rest', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 1)
    const rules = [
      { pattern: '问题', replacement: 'Q', scope: 'history' },
      { pattern: '(?:主人)', replacement: '{{user}}', scope: 'input', flags: 'i' },
      { pattern: '回答', replacement: 'A', scope: 'history', enabled: false },
      { pattern: '小助手', replacement: 'BOT', scope: ['output-display'] },
    ]
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        history,
        input: { text: '主人回来了' },
        config: {
          character: { user_name: '阿明', reply_format: 'plain' },
          pipeline: { processors: { 'regex-processor': { rules } } },
        },
      }),
    )
    expect(messages.map(messageText).slice(1)).toEqual(['Q0', '回答0', '阿明回来了'])
    expect(messageText(messages[0]!)).toContain('小助手')
  })

  it('leaves texts over max_input_chars alone and says so', async () => {
    const { messages, logs } = await createContextPipeline().build(
      createFakeBuildOptions({
        input: { text: 'a'.repeat(100) },
        config: {
          pipeline: {
            processors: {
              'regex-processor': { rules: [{ pattern: 'a', scope: 'input' }], max_input_chars: 50 },
            },
          },
        },
      }),
    )
    expect(messageText(messages.at(-1)!)).toBe('a'.repeat(100))
    expect(logs).toContainEqual(expect.objectContaining({ processorId: 'regex-processor', level: 'warn' }))
  })

  it('applyDisplayRegexRules applies only output-display rules, and nothing when disabled', () => {
    const rules = [
      { pattern: '\\*[^*]*\\*', replacement: '', scope: 'output-display' },
      { pattern: '你好', replacement: 'hi', scope: 'input' },
    ]
    const config = createFakeBuildOptions({
      config: { pipeline: { processors: { 'regex-processor': { rules } } } },
    }).config
    expect(applyDisplayRegexRules('你好*挥手*呀', config)).toBe('你好呀')
    const disabled = createFakeBuildOptions({
      config: { pipeline: { processors: { 'regex-processor': { rules, enabled: false } } } },
    }).config
    expect(applyDisplayRegexRules('你好*挥手*呀', disabled)).toBe('你好*挥手*呀')
  })
})

describe('regex rules in a turn (createCharpipe)', () => {
  async function runTurn(rules: unknown[], text: string) {
    const provider = createFakeProvider()
    const charpipe = await createCharpipe(
      makeConfig({ pipeline: { processors: { 'regex-processor': { rules } } } } as never),
      { provider },
    )
    try {
      const events = await collectEvents(charpipe.generate({ text }))
      doneOf(events)
      const preview = await charpipe.inspect.preview({ text, session: 'preview' })
      const sent = provider.calls[0]!.request.messages
      return { sentInput: messageText(sent.at(-1)!), logs: preview.logs }
    } finally {
      await charpipe.close()
    }
  }

  // Each of these stalled a turn for seconds on a backtracking engine; RE2 takes linear time.
  it.each([
    ['(a+){2,40}b', 'a'.repeat(19_000)],
    ['(?:a|aa){1,60}b', 'a'.repeat(19_000)],
    ['\\s*\\s*$', `${' '.repeat(19_000)}x`],
    ['(a+)+$', `${'a'.repeat(19_000)}!`],
  ])('runs %s over a long input without stalling the turn', async (pattern, text) => {
    const { sentInput } = await runTurn([{ pattern, replacement: '', scope: 'input' }], text)
    expect(sentInput.length).toBeGreaterThan(0)
  })

  it('does not let a replacement multiply the input, and still applies the rightful rules', async () => {
    const text = `主人${'字'.repeat(6_000)}`
    const rules = [
      { pattern: '.', replacement: '{{lastUserMessage}}', scope: 'input' },
      { pattern: '主人', replacement: '{{user}}', scope: 'input' },
    ]
    const { sentInput, logs } = await runTurn(rules, text)
    expect(sentInput).toBe(`用户${'字'.repeat(6_000)}`)
    expect(logs).toContainEqual(
      expect.objectContaining({
        processorId: 'regex-processor',
        level: 'warn',
        message: expect.stringContaining('were not applied'),
      }),
    )
  })

  it('bounds what {{lastUserMessage}} in a persona inserts, and still expands it', async () => {
    const provider = createFakeProvider()
    const persona = `你在回应：{{lastUserMessage}}${'{{lastUserMessage}}'.repeat(200)}`
    const charpipe = await createCharpipe(makeConfig({ character: { persona } }), { provider })
    try {
      const text = '字'.repeat(6_000)
      doneOf(await collectEvents(charpipe.generate({ text })))
      const system = messageText(provider.calls[0]!.request.messages[0]!)
      expect(system).toContain(`你在回应：${text}`)
      expect(system.length).toBeLessThan(60_000)
      const preview = await charpipe.inspect.preview({ text, session: 'preview' })
      expect(preview.logs).toContainEqual(
        expect.objectContaining({ processorId: 'injection-assembler', level: 'warn' }),
      )
    } finally {
      await charpipe.close()
    }
  })

  it('inserts macro values as text: a "$" in the user message is not a template', async () => {
    const rules = [{ pattern: '^', replacement: '<{{lastUserMessage}}>', scope: 'input' }]
    const { sentInput } = await runTurn(rules, '说 $& 和 $` 吧')
    expect(sentInput).toBe('<说 $& 和 $` 吧>说 $& 和 $` 吧')
  })

  it('fills $1, $<name> and $& from the match', async () => {
    const rules = [{ pattern: '(?<who>小\\w)(说)', replacement: '[$<who>|$2|$&|$$]', scope: 'input' }]
    const { sentInput } = await runTurn(rules, '小A说你好')
    expect(sentInput).toBe('[小A|说|小A说|$]你好')
  })
})
