/**
 * The JSON value in a model's reply to a "JSON only" request. Models often wrap it in a ```json
 * fence or add a sentence around it, so the value is taken from the first `{` or `[` to the last
 * matching bracket. Throws naming the problem (with a short excerpt) when there is no JSON.
 */
import { scrubSecrets } from '../shared/logger.js'

function excerpt(text: string): string {
  const compact = text.replace(/\s+/g, ' ').trim()
  return JSON.stringify(scrubSecrets(compact.length > 80 ? `${compact.slice(0, 80)}…` : compact))
}

export function readJsonReply(reply: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(reply)
  const body = (fenced ? fenced[1]! : reply).trim()
  const objectStart = body.indexOf('{')
  const arrayStart = body.indexOf('[')
  const starts = [objectStart, arrayStart].filter((index) => index >= 0)
  if (starts.length === 0) throw new Error(`the reply holds no JSON: ${excerpt(reply)}`)
  const start = Math.min(...starts)
  const end = body.lastIndexOf(body[start] === '{' ? '}' : ']')
  if (end < start) throw new Error(`the reply holds no complete JSON: ${excerpt(reply)}`)
  try {
    return JSON.parse(body.slice(start, end + 1))
  } catch {
    throw new Error(`the reply is not valid JSON: ${excerpt(reply)}`)
  }
}
