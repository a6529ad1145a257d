/**
 * Chat platforms want short messages: a reply is cut into parts of at most `maxChars`, at the end of
 * a sentence or line where one falls inside the limit, else at a space, else where the limit falls.
 */
const sentenceEnd = /[。！？!?…\n]|[.;；](?=\s)/g

export function splitReplyText(text: string, maxChars: number): string[] {
  const parts: string[] = []
  let rest = text.trim()
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1)
    let cut = -1
    for (const match of window.matchAll(sentenceEnd)) if (match.index + 1 <= maxChars) cut = match.index + 1
    if (cut <= 0) cut = window.lastIndexOf(' ', maxChars)
    if (cut <= 0) cut = maxChars
    // Never split a surrogate pair (an emoji) in two.
    const code = rest.charCodeAt(cut - 1)
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1
    parts.push(rest.slice(0, cut).trim())
    rest = rest.slice(cut).trim()
  }
  if (rest.length > 0) parts.push(rest)
  return parts.filter((part) => part.length > 0)
}
