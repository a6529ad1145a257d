/**
 * The bracket emotion tag, the one grammar of it: `[name]`, as charpipe writes it (to
 * Open-LLM-VTuber, profile emotion `bracket`) and reads it (in a reply, for a configured label or
 * alias). A name is 1 to 16 UTF-16 units without `[`, `]` or a line break; anything else in
 * brackets is ordinary text.
 */

/** Longest name inside the brackets (UTF-16 units). */
export const maxBracketNameUnits = 16

const forbidden = /[[\]\n]/

/** Whether `name` can travel as a tag. */
export function isBracketName(name: string): boolean {
  return name.length > 0 && name.length <= maxBracketNameUnits && !forbidden.test(name)
}

/** The tag of one name; the brackets' own characters and line breaks are left out of it. */
export function writeBracketTag(name: string): string {
  return `[${name.replace(/[[\]\n]/g, '').slice(0, maxBracketNameUnits)}]`
}

/** The name inside a whole tag; undefined when it is not one. */
export function readBracketTag(tag: string): string | undefined {
  if (!tag.startsWith('[') || !tag.endsWith(']')) return undefined
  const name = tag.slice(1, -1)
  return isBracketName(name) ? name : undefined
}
