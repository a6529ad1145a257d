import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createOpenAIChunkParser } from './create-openai-chunk-parser.js'
import { createPlainContentReader, readPlainContentDelta } from './read-plain-content-delta.js'
import type { ProviderEvent } from './types.js'

const chunk = (
  content: string,
  head = '"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",',
) => `{${head}"choices":[{"index":0,"delta":{"content":"${content}"},"logprobs":null,"finish_reason":null}]}`

/** The events the chunk parser makes of `data` through JSON.parse; undefined when that throws. */
function eventsThroughJson(data: string): ProviderEvent[] | undefined {
  const parser = createOpenAIChunkParser()
  const out: ProviderEvent[] = []
  try {
    parser.push(JSON.parse(data), out)
    parser.end(out)
  } catch {
    return undefined
  }
  return out
}

function eventsOfContent(content: string): ProviderEvent[] {
  const parser = createOpenAIChunkParser()
  const out: ProviderEvent[] = []
  parser.pushContent(content, out)
  parser.end(out)
  return out
}

describe('readPlainContentDelta', () => {
  it('reads the content of the chunks of a reply as the APIs write them', () => {
    expect(readPlainContentDelta(chunk('你好'))).toBe('你好')
    expect(readPlainContentDelta(chunk('Hello, world'))).toBe('Hello, world')
    expect(readPlainContentDelta(chunk(''))).toBe('')
    // DeepSeek, with a system fingerprint; fields after the choices; a bare choice.
    expect(
      readPlainContentDelta(
        '{"id":"x","object":"chat.completion.chunk","created":1718345013,"model":"deepseek-chat","system_fingerprint":"fp_a","choices":[{"index":0,"delta":{"content":"一"},"logprobs":null,"finish_reason":null}]}',
      ),
    ).toBe('一')
    expect(
      readPlainContentDelta(
        '{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"service_tier":"default","obfuscation":"q8"}',
      ),
    ).toBe('a')
    expect(readPlainContentDelta('{"choices":[{"index":0,"delta":{"content":"a"}}]}')).toBe('a')
    // OpenAI with usage asked for: `"usage":null` on every chunk but the last.
    expect(readPlainContentDelta(chunk('a', '"usage":null,"error":null,'))).toBe('a')
    expect(
      readPlainContentDelta(
        '{"id":"c","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":{"content":" Name"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Zb"}',
      ),
    ).toBe(' Name')
  })

  it('leaves every chunk with more in it, or another form, to the JSON parser', () => {
    const others = [
      chunk('a\\nb'),
      chunk('say \\"hi\\"'),
      chunk('a\nb'),
      chunk('a', '"id":"c\\"1",'),
      chunk('a', '"usage":{"prompt_tokens":1},'),
      chunk('a', '"error":"boom",'),
      chunk('a', '"usage":nulls,'),
      chunk('a', '"error":false,'),
      chunk('a', '"choices":[],'),
      chunk('a', '"created":01,'),
      chunk('a', '"id" :"c",'),
      chunk('a', '"id":"c" ,'),
      chunk('a', '"nested":{"a":1},'),
      '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"},"delta":{"content":"b"}}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":3}}',
      '{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]}',
      '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
      '{"choices":[{"index":0,"delta":{"content":"a","reasoning_content":"b"}}]}',
      '{"choices":[{"index":1,"delta":{"content":"a"}}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"}}]} ',
      '{"choices":[{"index":0,"delta":{"content":"a"}}]',
      '{"choices":[{"index":0,"delta":{"content":"a"}}]}}',
      '{"choices":[{"index":0,"delta":{"content":"a"}',
      '{"choices":[{"index":0,"delta":{"content":"a"},}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"}}],}',
      '{,"choices":[{"index":0,"delta":{"content":"a"}}]}',
      '{"choices":[{"index":0,"delta":{"content":"a"}}]]}',
      '{}',
      '',
    ]
    for (const data of others) expect(readPlainContentDelta(data), data).toBeUndefined()
  })

  it('never disagrees with the chunk parser reading JSON.parse (generated chunks, whole and damaged)', () => {
    // Mostly characters a plain chunk has, some that take it off the fast path.
    const text = fc
      .array(
        fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom('a', '你', '好', ' ', '😀', 'null', '}', ']', ',', ':') },
          { weight: 1, arbitrary: fc.constantFrom('"', '\\', '\n', '\t', '\ud83d') },
        ),
        { maxLength: 6 },
      )
      .map((pieces) => pieces.join(''))
    const value = fc.oneof(
      { weight: 3, arbitrary: text },
      { weight: 1, arbitrary: fc.integer() },
      { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
      { weight: 2, arbitrary: fc.constantFrom(null, true, false) },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('a', 'b'), fc.integer(), { maxKeys: 2 }) },
    )
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('id', 'object', 'created', 'model', 'x') },
      { weight: 1, arbitrary: fc.constantFrom('usage', 'error', 'choices', 'index', 'delta') },
    )
    const fields = fc.array(fc.tuple(key, value), { maxLength: 3 })
    const chunkObject = fc
      .record({
        head: fields,
        tail: fields,
        choiceRest: fc.array(
          fc.oneof(
            {
              weight: 4,
              arbitrary: fc.tuple(fc.constantFrom('logprobs', 'finish_reason'), fc.constant(null)),
            },
            {
              weight: 1,
              arbitrary: fc.tuple(fc.constantFrom('logprobs', 'finish_reason', 'index', 'delta', 'y'), value),
            },
          ),
          { maxLength: 3 },
        ),
        content: text,
        extraDelta: fc.option(fc.tuple(fc.constantFrom('role', 'reasoning_content', 'tool_calls'), value), {
          nil: undefined,
          freq: 4,
        }),
      })
      .map(({ head, tail, choiceRest, content, extraDelta }) => {
        const delta = extraDelta
          ? `{"content":${JSON.stringify(content)},${pair(extraDelta)}}`
          : `{"content":${JSON.stringify(content)}}`
        const rest = choiceRest.map((entry) => `,${pair(entry)}`).join('')
        const before = head.map((entry) => `${pair(entry)},`).join('')
        const after = tail.map((entry) => `,${pair(entry)}`).join('')
        return `{${before}"choices":[{"index":0,"delta":${delta}${rest}}]${after}}`
      })
    // Damage: a character dropped, doubled or replaced somewhere.
    const damaged = fc
      .tuple(chunkObject, fc.nat(), fc.constantFrom('drop', 'double', 'space', 'quote', 'brace'))
      .map(([data, at, how]) => {
        const index = data.length === 0 ? 0 : at % data.length
        const replacement = {
          drop: '',
          double: data.slice(index, index + 1).repeat(2),
          space: ' ',
          quote: '"',
          brace: '}',
        }[how]
        return data.slice(0, index) + replacement + data.slice(index + 1)
      })
    let read = 0
    fc.assert(
      fc.property(fc.oneof(chunkObject, damaged), (data) => {
        const content = readPlainContentDelta(data)
        if (content === undefined) return
        read++
        expect(JSON.parse(data).choices[0].delta.content).toBe(content)
        expect(eventsOfContent(content)).toEqual(eventsThroughJson(data))
      }),
      { numRuns: 3000 },
    )
    // The common shape is generated often enough that the fast path is exercised, not only refused.
    expect(read).toBeGreaterThan(50)
  })

  it("a stream's reader reads each chunk as readPlainContentDelta does (generated streams)", () => {
    // Chunks that share their text around the content, as a stream's do, and some that do not.
    const content = fc
      .array(fc.constantFrom('a', '你', ' ', '"', '\\', '\n', '}', '"}', ''), { maxLength: 4 })
      .map((pieces) => pieces.join(''))
    const around = fc.constantFrom(
      ['{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":', '},"finish_reason":null}]}'],
      [
        '{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":',
        '},"finish_reason":null}],"usage":null}',
      ],
      ['{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":', '},"finish_reason":"stop"}]}'],
      ['{"id":"c2","choices":[{"index":0,"delta":{"content":', '}}]}'],
      ['{"usage":{"a":1},"choices":[{"index":0,"delta":{"content":', '}}]}'],
    )
    const chunkData = fc.tuple(around, content, fc.boolean()).map(([[before, after], text, raw]) =>
      // Raw: the text put in as it is, so quotes and escapes land in the JSON unescaped.
      raw ? `${before}"${text}"${after}` : `${before}${JSON.stringify(text)}${after}`,
    )
    fc.assert(
      fc.property(fc.array(chunkData, { maxLength: 12 }), (stream) => {
        const read = createPlainContentReader()
        for (const data of stream) expect(read(data), data).toBe(readPlainContentDelta(data))
      }),
      { numRuns: 500 },
    )
  })
})

function pair([key, value]: [string, unknown]): string {
  return `${JSON.stringify(key)}:${JSON.stringify(value)}`
}
