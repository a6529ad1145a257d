/**
 * The content of an OpenAI-format chunk that carries nothing but a piece of text, read without
 * `JSON.parse`: an object of scalar fields (`id`, `object`, `created`, `model`, `usage: null`, …,
 * with no escape in any string) around `"choices":[{"index":0,"delta":{"content":"…"},
 * "finish_reason":null}]` (a `"logprobs":null` before `finish_reason` allowed). That is nearly every
 * chunk of a reply, and building its objects is the largest share of a chunk's CPU (more so for
 * Chinese, a two-byte string). Anything else — spaces, escapes, another field in the choice, a
 * non-null `usage` or `error` — gives `undefined`, and the caller parses the JSON: whatever this
 * returns is what `JSON.parse(data).choices[0].delta.content` would be, for a chunk that asks for
 * nothing else.
 */

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const colon = 0x3a
const closeBrace = 0x7d
const firstPrintable = 0x20

const choicePrefix = '[{"index":0,"delta":{"content":"'
const choiceEnds = ['"},"finish_reason":null}]', '"},"logprobs":null,"finish_reason":null}]']

/** The position of the quote that ends a string without escapes starting at `start`, or -1. */
function endOfPlainString(data: string, start: number): number {
  for (let position = start; position < data.length; position++) {
    const code = data.charCodeAt(position)
    if (code === quote) return position
    if (code === backslash || code < firstPrintable) return -1
  }
  return -1
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39

/** The end of the digits from `start` (at least one), or -1. */
function endOfDigits(data: string, start: number): number {
  let position = start
  while (isDigit(data.charCodeAt(position))) position++
  return position === start ? -1 : position
}

/** The end of a JSON number at `start`, or -1. */
function endOfNumber(data: string, start: number): number {
  let position = data.charCodeAt(start) === 0x2d ? start + 1 : start
  position = data.charCodeAt(position) === 0x30 ? position + 1 : endOfDigits(data, position)
  if (position !== -1 && data.charCodeAt(position) === 0x2e) position = endOfDigits(data, position + 1)
  if (position === -1) return -1
  const exponent = data.charCodeAt(position)
  if (exponent !== 0x65 && exponent !== 0x45) return position
  const sign = data.charCodeAt(position + 1)
  return endOfDigits(data, sign === 0x2b || sign === 0x2d ? position + 2 : position + 1)
}

/** The end of a scalar value (plain string, number, `null`, `true`, `false`) at `start`, or -1. */
function endOfScalar(data: string, start: number): number {
  const code = data.charCodeAt(start)
  if (code === quote) {
    const end = endOfPlainString(data, start + 1)
    return end === -1 ? -1 : end + 1
  }
  for (const word of ['null', 'true', 'false']) if (data.startsWith(word, start)) return start + word.length
  return code === 0x2d || isDigit(code) ? endOfNumber(data, start) : -1
}

/** The content of the one choice at `start`, and where it ends; undefined: not that shape. */
function readChoice(data: string, start: number): { content: string; end: number } | undefined {
  if (!data.startsWith(choicePrefix, start)) return undefined
  const contentStart = start + choicePrefix.length
  const contentEnd = endOfPlainString(data, contentStart)
  if (contentEnd === -1) return undefined
  for (const ending of choiceEnds)
    if (data.startsWith(ending, contentEnd))
      return { content: data.slice(contentStart, contentEnd), end: contentEnd + ending.length }
  return undefined
}

export function readPlainContentDelta(data: string): string | undefined {
  if (data.charCodeAt(0) !== 0x7b || data.charCodeAt(data.length - 1) !== closeBrace) return undefined
  let content: string | undefined
  let position = 1
  for (;;) {
    if (data.charCodeAt(position) !== quote) return undefined
    const keyEnd = endOfPlainString(data, position + 1)
    if (keyEnd === -1 || data.charCodeAt(keyEnd + 1) !== colon) return undefined
    const keyStart = position + 1
    const valueStart = keyEnd + 2
    const keyLength = keyEnd - keyStart
    let valueEnd: number
    if (keyLength === 7 && data.startsWith('choices', keyStart)) {
      const choice = content === undefined ? readChoice(data, valueStart) : undefined
      if (!choice) return undefined
      content = choice.content
      valueEnd = choice.end
    } else {
      valueEnd = endOfScalar(data, valueStart)
      if (valueEnd === -1) return undefined
      // A usage or an in-band error is read by the chunk parser: only `null` passes here.
      const named = (name: string) => keyLength === name.length && data.startsWith(name, keyStart)
      if ((named('usage') || named('error')) && !data.startsWith('null', valueStart)) return undefined
    }
    const next = data.charCodeAt(valueEnd)
    if (next === closeBrace) return valueEnd === data.length - 1 ? content : undefined
    if (next !== comma) return undefined
    position = valueEnd + 1
  }
}
