import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readPlainContentDelta } from './read-plain-content-delta.js'

/** The chunk as JSON.parse reads it, when it asks for nothing but its content (else undefined). */
function parseContentOnly(data: string): string | undefined {
  let chunk: Record<string, unknown>
  try {
    chunk = JSON.parse(data)
  } catch {
    return undefined
  }
  const choices = chunk.choices as {
    index?: unknown
    delta?: Record<string, unknown>
    finish_reason?: unknown
  }[]
  if (chunk.usage || chunk.error || !Array.isArray(choices) || choices.length !== 1) return undefined
  const [choice] = choices
  if (choice!.finish_reason !== null || Object.keys(choice!.delta ?? {}).join() !== 'content')
    return undefined
  return choice!.delta!.content as string
}

const openAIChunk = (content: string) =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1","service_tier":"default","system_fingerprint":"fp_de","choices":[{"index":0,"delta":{"content":"${content}"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"yhjo"}`

describe('readPlainContentDelta', () => {
  it('reads the content of a text-only chunk without parsing (OpenAI, DeepSeek, the mock server)', () => {
    expect(readPlainContentDelta(openAIChunk('你好'))).toBe('你好')
    expect(
      readPlainContentDelta(
        '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":null}',
      ),
    ).toBe('a')
    expect(readPlainContentDelta(openAIChunk(''))).toBe('')
  })

  it('leaves every chunk that carries more, or is written otherwise, to the JSON parser', () => {
    const others = [
      openAIChunk('a\\nb'),
      openAIChunk('\\u4f60'),
      openAIChunk('a"b'),
      openAIChunk('a').replace('"usage":null', '"usage":{"prompt_tokens":1}'),
      openAIChunk('a').replace('"usage":null', '"error":"boom"'),
      openAIChunk('a').replace('"finish_reason":null', '"finish_reason":"stop"'),
      openAIChunk('a').replace('"delta":{"content":"a"}', '"delta":{"content":"a","reasoning_content":"b"}'),
      openAIChunk('a').replace('"delta":{"content":"a"}', '"delta":{"role":"assistant","content":"a"}'),
      openAIChunk('a').replace('"created":1770933892', '"created":01'),
      openAIChunk('a').replace('"created":1770933892', '"created": 1'),
      openAIChunk('a').replace('"obfuscation":"yhjo"', '"obfuscation":"yhjo","choices":[]'),
      `${openAIChunk('a')} `,
      '{"choices":[{"index":1,"delta":{"content":"a"},"finish_reason":null}]}',
      '{"id":"x"}',
      '{}',
    ]
    for (const data of others) expect(readPlainContentDelta(data), data).toBeUndefined()
  })

  it('never disagrees with JSON.parse', () => {
    const text = fc
      .array(fc.constantFrom('a', '你', '"', '\\', '\\n', '\n', '}', ']', ',', ':', '\ud83d', ' '), {
        maxLength: 6,
      })
      .map((parts) => parts.join(''))
    const scalar = fc.oneof(
      text.map((value) => `"${value}"`),
      fc.constantFrom(
        'null',
        'true',
        'false',
        '0',
        '-1',
        '1.5',
        '1e3',
        '2E-2',
        '01',
        '1.',
        '-',
        '1e',
        'nul',
        '{}',
        '[]',
        '{"a":1}',
      ),
    )
    const key = fc.constantFrom('id', 'model', 'usage', 'error', 'created', 'choices', 'a"b', 'x\\"')
    const choice = text.map(
      (content) => `[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]`,
    )
    const field = fc.oneof(
      fc.tuple(key, scalar).map(([name, value]) => `"${name}":${value}`),
      choice.map((value) => `"choices":${value}`),
    )
    fc.assert(
      fc.property(fc.array(field, { maxLength: 5 }), fc.constantFrom('', ' '), (fields, space) => {
        const data = `{${fields.join(`,${space}`)}}`
        const fast = readPlainContentDelta(data)
        if (fast !== undefined) expect(fast).toBe(parseContentOnly(data))
      }),
      { numRuns: 3000 },
    )
  })
})
