/**
 * AIRI's ACT token, the one grammar of it: `<|ACT:{"emotion":{"name":"happy","intensity":1}}|>`
 * as charpipe writes it (to AIRI, profile emotion `act`), and every form a model or AIRI writes as
 * charpipe reads it (in a reply): `:` or spaces after `ACT`, the JSON with or without its braces,
 * the emotion a name or `{name, intensity}`. A `>` inside the JSON is written `\u003e`, so no name
 * can end the token early: reading what was written gives back the same emotion.
 */

export interface ActEmotion {
  name: string
  /** 0 to 1; 1 when the token says none. */
  intensity: number
}

/** Longest token read (UTF-16 units): anything longer is ordinary text. */
export const maxActTokenUnits = 200

const tokenPattern = /^<\|\s*ACT\s*(?::\s*)?([\s\S]*?)\s*\|>$/

/** The token of one emotion. */
export function writeActToken(emotion: ActEmotion): string {
  const json = JSON.stringify({ emotion: { name: emotion.name, intensity: emotion.intensity } })
  return `<|ACT:${json.replaceAll('>', '\\u003e')}|>`
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    // AIRI's prompt shows the members without their braces: `<|ACT:"emotion":{…}|>`.
    try {
      return JSON.parse(`{${text}}`)
    } catch {
      return undefined
    }
  }
}

/** The emotion of a whole token; undefined when it is not an ACT token that names one. */
export function readActToken(token: string): ActEmotion | undefined {
  const match = tokenPattern.exec(token)
  if (!match) return undefined
  const value = parseObject(match[1]!)
  if (typeof value !== 'object' || value === null || !('emotion' in value)) return undefined
  const emotion = value.emotion
  if (typeof emotion === 'string') return emotion.trim() ? { name: emotion, intensity: 1 } : undefined
  if (typeof emotion !== 'object' || emotion === null || !('name' in emotion)) return undefined
  const { name } = emotion
  if (typeof name !== 'string' || !name.trim()) return undefined
  const intensity = 'intensity' in emotion && typeof emotion.intensity === 'number' ? emotion.intensity : 1
  return { name, intensity }
}
