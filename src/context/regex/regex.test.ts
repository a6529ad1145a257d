import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { messageText } from '../../shared/messages.js'
import { checkPipelineConfig } from '../check-pipeline-config.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import { createFakeBuildOptions, storeTurns } from '../fake-build-options.js'
import { applyDisplayRegexRules } from './apply-display-regex-rules.js'
import { findRegexRisk } from './find-regex-risk.js'

describe('findRegexRisk', () => {
  it.each([
    '(a+)+$',
    '(a*)*b',
    '(?:\\w+\\s?)*$',
    '(a|a)*c',
    '(\\w|\\d)+!',
    '(ab|a)+x',
    '((ab)*c)+',
    '(?<word>x+)+',
    '(a{1,})+',
  ])('rejects %s', (pattern) => {
    expect(findRegexRisk(pattern)).toBeDefined()
  })

  it.each([
    '\\(.*?\\)',
    '(foo|bar)+',
    '[a-z]+\\d*',
    '(ab)+',
    '(a+)?',
    '[(+)]*',
    '\\(a+\\)+',
    '(?:https?://)\\S+',
    '（[^）]*）',
  ])('accepts %s', (pattern) => {
    expect(findRegexRisk(pattern)).toBeUndefined()
  })
})

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

  it('rejects a catastrophic pattern', () => {
    const issues = check({ 'regex-processor': { rules: [{ pattern: '(a+)+$' }] } })
    expect(issues[0]).toMatchObject({ path: 'pipeline.processors.regex-processor.rules.0.pattern' })
    expect(issues[0]!.message).toContain('nested quantifier')
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
          character: { user_name: '阿明' },
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
