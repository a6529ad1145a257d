/**
 * The text of an OpenAI-format `chat.completion.chunk` written the way the APIs write a reply's
 * chunks, read without `JSON.parse`:
 *
 *   {"id":"…","object":"chat.completion.chunk","created":1,"model":"…",
 *    "choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,"finish_reason":null}]}
 *
 * That is nearly every chunk of a reply, and parsing it into objects is the largest share of a
 * chunk's CPU (as for Anthropic's deltas: read-plain-text-delta.ts). The fields around the content
 * may be any plain ones (a string with no escape, a number, `null`, `true`, `false`) in any order,
 * but none the chunk parser reads (`usage` or `error` other than `null`, `choices` again, a
 * `finish_reason` that is not `null`, another `delta`); the content has no escape, no quote and no control character. Anything
 * else (a role, reasoning, tool calls, spaces, an escape, a second choice) gives `undefined`, and the
 * caller parses the JSON: whatever this returns is what `JSON.parse(data).choices[0].delta.content`
 * would be, for a chunk the parser would read nothing else from.
 */

const choicesKey = '"choices":[{"index":0,"delta":{"content":"'
const contentEnd = '"}'

const quote = 0x22
const backslash = 0x5c
const firstPrintable = 0x20
const openBrace = 0x7b
const closeBrace = 0x7d
const comma = 0x2c
const colon = 0x3a
const closeBracket = 0x5d

/** Whether the key between `keyStart` and `keyEnd` (quotes excluded) is `name`. */
const isKey = (data: string, keyStart: number, keyEnd: number, name: string) =>
  keyEnd - keyStart === name.length && data.startsWith(name, keyStart)

/** An escape or a control character: a chunk with one anywhere goes to JSON.parse. */
const notPlain = /[\\\u0000-\u001f]/

/** End of a JSON string at `start` (a quote), in a chunk known to have no escape: the position after it, or -1. */
function endOfPlainString(data: string, start: number): number {
  if (data.charCodeAt(start) !== quote) return -1
  const end = data.indexOf('"', start + 1)
  return end === -1 ? -1 : end + 1
}

// A JSON number, `null`, `true` or `false`, exactly as JSON.parse accepts them.
const plainScalar = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|null|true|false/y

/** End of a plain value (string or scalar) at `start`, or -1. */
function endOfPlainValue(data: string, start: number): number {
  if (data.charCodeAt(start) === quote) return endOfPlainString(data, start)
  plainScalar.lastIndex = start
  return plainScalar.test(data) ? plainScalar.lastIndex : -1
}

/** Says whether a pair may be there: its key from `keyStart` to `keyEnd`, its value from `valueStart` to `valueEnd`. */
type AllowsPair = (
  data: string,
  keyStart: number,
  keyEnd: number,
  valueStart: number,
  valueEnd: number,
) => boolean

/** One `"key":value` pair at `start` that `allows` lets through: the position after it, or -1. */
function skipPlainPair(data: string, start: number, allows: AllowsPair): number {
  const keyEnd = endOfPlainString(data, start)
  if (keyEnd === -1 || data.charCodeAt(keyEnd) !== colon) return -1
  const valueEnd = endOfPlainValue(data, keyEnd + 1)
  if (valueEnd === -1 || !allows(data, start + 1, keyEnd - 1, keyEnd + 1, valueEnd)) return -1
  return valueEnd
}

/** `,"key":value` pairs from `start` up to the character `stop`: the position of `stop`, or -1. */
function skipTrailingPairs(data: string, start: number, stop: number, allows: AllowsPair): number {
  let position = start
  while (data.charCodeAt(position) !== stop) {
    if (data.charCodeAt(position) !== comma) return -1
    position = skipPlainPair(data, position + 1, allows)
    if (position === -1) return -1
  }
  return position
}

const isNull = (data: string, valueStart: number, valueEnd: number) =>
  valueEnd - valueStart === 4 && data.startsWith('null', valueStart)

/** Any field but those the chunk parser reads: `usage` and `error` only as `null` (OpenAI's every chunk). */
const allowsTopLevel: AllowsPair = (data, keyStart, keyEnd, valueStart, valueEnd) => {
  if (isKey(data, keyStart, keyEnd, 'usage') || isKey(data, keyStart, keyEnd, 'error'))
    return isNull(data, valueStart, valueEnd)
  return !isKey(data, keyStart, keyEnd, 'choices')
}

/** In the choice, after its delta: any field but another index or delta, and `finish_reason` only as `null`. */
const allowsChoiceRest: AllowsPair = (data, keyStart, keyEnd, valueStart, valueEnd) => {
  if (isKey(data, keyStart, keyEnd, 'finish_reason')) return isNull(data, valueStart, valueEnd)
  return !isKey(data, keyStart, keyEnd, 'index') && !isKey(data, keyStart, keyEnd, 'delta')
}

/** Where the content starts, after the fields before the choices (checked); -1 when not plain. */
function findContentStart(data: string): number {
  if (data.charCodeAt(0) !== openBrace) return -1
  // Fields before the choices: `"key":value,` each, up to the choices with their one delta.
  let position = 1
  while (!data.startsWith(choicesKey, position)) {
    position = skipPlainPair(data, position, allowsTopLevel)
    if (position === -1 || data.charCodeAt(position) !== comma) return -1
    position++
  }
  return position + choicesKey.length
}

/** The content from `textStart` (after a checked head), when the rest of the chunk is plain. */
function readContentFrom(data: string, textStart: number): string | undefined {
  if (data.charCodeAt(data.length - 1) !== closeBrace) return undefined
  const textEnd = data.indexOf('"', textStart)
  if (textEnd === -1 || !data.startsWith(contentEnd, textEnd)) return undefined
  // The rest of the one choice, the end of the array, then the fields after the choices.
  const choiceEnd = skipTrailingPairs(data, textEnd + contentEnd.length, closeBrace, allowsChoiceRest)
  if (choiceEnd === -1 || data.charCodeAt(choiceEnd + 1) !== closeBracket) return undefined
  const objectEnd = skipTrailingPairs(data, choiceEnd + 2, closeBrace, allowsTopLevel)
  if (objectEnd !== data.length - 1) return undefined
  return data.slice(textStart, textEnd)
}

export function readPlainContentDelta(data: string): string | undefined {
  // With no escape anywhere, every quote opens or closes a string: strings end at the next quote.
  if (notPlain.test(data)) return undefined
  const textStart = findContentStart(data)
  return textStart === -1 ? undefined : readContentFrom(data, textStart)
}

/**
 * `readPlainContentDelta` for the chunks of one stream, which differ only in their content (the same
 * id, created, model, fingerprint before it; the same fields after it): once a chunk has been
 * checked whole, a chunk with the same text before and after its content has only its content
 * checked (no quote, escape or control character), which makes it the same chunk but for that.
 */
export function createPlainContentReader(): (data: string) => string | undefined {
  let before = ''
  let after = ''
  let known = false
  return (data) => {
    if (
      known &&
      data.length >= before.length + after.length &&
      data.startsWith(before) &&
      data.endsWith(after)
    ) {
      const end = data.length - after.length
      for (let position = before.length; position < end; position++) {
        const code = data.charCodeAt(position)
        if (code === quote || code === backslash || code < firstPrintable) return readPlainContentDelta(data)
      }
      return data.slice(before.length, end)
    }
    const content = readPlainContentDelta(data)
    if (content !== undefined) {
      const start = findContentStart(data)
      before = data.slice(0, start)
      after = data.slice(start + content.length)
      known = true
    }
    return content
  }
}
