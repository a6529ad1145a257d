/**
 * A OneBot message in string form (`message_format: string`) holds its segments as CQ codes:
 * `你好[CQ:at,qq=10001][CQ:image,file=a.jpg,url=https://…]`. This turns it into the segment array
 * the array form carries, unescaping `&amp;`, `&#91;`, `&#93;` and (inside codes) `&#44;`.
 */
import type { OnebotSegment } from './onebot-types.js'

const cqCode = /\[CQ:([A-Za-z0-9_.-]+)((?:,[^\]]*)?)\]/g

export function parseCqMessage(message: string): OnebotSegment[] {
  const segments: OnebotSegment[] = []
  let last = 0
  for (const match of message.matchAll(cqCode)) {
    if (match.index > last) segments.push(textSegment(message.slice(last, match.index)))
    const data: Record<string, unknown> = {}
    for (const pair of (match[2] ?? '').split(',').slice(1)) {
      const equals = pair.indexOf('=')
      if (equals <= 0) continue
      data[pair.slice(0, equals)] = unescapeCq(pair.slice(equals + 1), true)
    }
    segments.push({ type: match[1] as string, data })
    last = match.index + match[0].length
  }
  if (last < message.length) segments.push(textSegment(message.slice(last)))
  return segments
}

function textSegment(text: string): OnebotSegment {
  return { type: 'text', data: { text: unescapeCq(text, false) } }
}

function unescapeCq(text: string, inCode: boolean): string {
  const unescaped = text.replaceAll('&#91;', '[').replaceAll('&#93;', ']')
  return (inCode ? unescaped.replaceAll('&#44;', ',') : unescaped).replaceAll('&amp;', '&')
}
