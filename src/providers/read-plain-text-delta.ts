/**
 * The text of an Anthropic `content_block_delta` event written the way the API writes it, read
 * without `JSON.parse`: `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta",
 * "text":"…"}}` where the text has no escape, no quote and no control character. That is nearly
 * every event of a reply, and parsing it into objects is the largest share of a chunk's CPU (the
 * reply is often Chinese, a two-byte string, which V8's JSON parser reads slowly). Anything else —
 * other fields, another order, spaces, an escape — gives `undefined`, and the caller parses the JSON:
 * whatever this returns is what `JSON.parse(data).delta.text` would be.
 */

const prefix = '{"type":"content_block_delta","index":'
const middle = ',"delta":{"type":"text_delta","text":"'
const suffix = '"}}'

const quote = 0x22
const backslash = 0x5c
const firstPrintable = 0x20

/** Whether `data` has a JSON integer (digits, no leading zero) from `start` to `end`. */
function isPlainIndex(data: string, start: number, end: number): boolean {
  if (end === start || (end - start > 1 && data.charCodeAt(start) === 0x30)) return false
  for (let position = start; position < end; position++) {
    const code = data.charCodeAt(position)
    if (code < 0x30 || code > 0x39) return false
  }
  return true
}

export function readPlainTextDelta(data: string): string | undefined {
  if (!data.startsWith(prefix) || !data.endsWith(suffix)) return undefined
  const indexEnd = data.indexOf(',', prefix.length)
  if (indexEnd === -1 || !isPlainIndex(data, prefix.length, indexEnd)) return undefined
  if (!data.startsWith(middle, indexEnd)) return undefined
  const start = indexEnd + middle.length
  const end = data.length - suffix.length
  if (end < start) return undefined
  for (let position = start; position < end; position++) {
    const code = data.charCodeAt(position)
    if (code === quote || code === backslash || code < firstPrintable) return undefined
  }
  return data.slice(start, end)
}
