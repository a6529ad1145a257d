/**
 * Every `blocked_words` list of a config (the top-level audience block, each character's, each
 * connector's) built into its matcher before the config takes effect, in slices: the first chat
 * line after a reload finds its list ready instead of building it in one piece.
 */
import { prepareBlockedWordMatcher, type RunSlice } from './create-blocked-word-matcher.js'

/** Deep enough for every place the schema has an audience block. */
const maxDepth = 8

export async function prepareBlockedWordLists(config: unknown, runSlice: RunSlice): Promise<void> {
  const lists = new Set<readonly string[]>()
  collectLists(config, lists, 0)
  for (const words of lists) if (words.length > 0) await prepareBlockedWordMatcher(words, { runSlice })
}

function collectLists(value: unknown, lists: Set<readonly string[]>, depth: number): void {
  if (depth > maxDepth || typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) {
    for (const item of value) collectLists(item, lists, depth + 1)
    return
  }
  for (const [key, field] of Object.entries(value)) {
    if (key === 'blocked_words' && Array.isArray(field) && field.every((word) => typeof word === 'string'))
      lists.add(field)
    else collectLists(field, lists, depth + 1)
  }
}
