/**
 * Whole-word keys, as SillyTavern matches them by default: "wood" is found in "a wood" but not in
 * "Hollywood". The text is cut into words once (letters, digits, marks and `_`) and each word looked
 * up, so the cost is the text's length whatever the number of keys. Characters of scripts written
 * without spaces (Chinese, Japanese) end a word as punctuation does, and a key holding them is not
 * a one-word key: it matches inside text, where there are no word boundaries to find.
 */

/** Letters, digits and marks of scripts written with spaces between words, and `_` (set subtraction: `v`). */
const wordCharacters = '[[\\p{L}\\p{N}\\p{M}_]--[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}]]+'
const wordPattern = new RegExp(wordCharacters, 'gv')
const singleWord = new RegExp(`^${wordCharacters}$`, 'v')

/** Whether a key is one word that whole-word matching applies to (no space, no punctuation, no CJK). */
export function isSingleWord(key: string): boolean {
  return singleWord.test(key)
}

export interface WordIndex<Owner> {
  /** A key, as it is to match (lowercased by the caller when `caseSensitive` is false). */
  add(key: string, caseSensitive: boolean, owner: Owner): void
  /** Calls `found` for the owner of each key that is a word of `text`; `lower` gives it lowercased. */
  scan(text: string, lower: () => string, found: (owner: Owner) => void): void
}

export function createWordIndex<Owner>(): WordIndex<Owner> {
  const sensitive = new Map<string, Owner[]>()
  const insensitive = new Map<string, Owner[]>()
  const lookUp = (map: Map<string, Owner[]>, text: string, found: (owner: Owner) => void) => {
    const seen = new Set<string>()
    for (const match of text.matchAll(wordPattern)) {
      const word = match[0]
      if (seen.has(word)) continue
      seen.add(word)
      for (const owner of map.get(word) ?? []) found(owner)
    }
  }
  return {
    add(key, caseSensitive, owner) {
      const map = caseSensitive ? sensitive : insensitive
      const owners = map.get(key) ?? []
      owners.push(owner)
      map.set(key, owners)
    },
    scan(text, lower, found) {
      if (sensitive.size > 0) lookUp(sensitive, text, found)
      if (insensitive.size > 0) lookUp(insensitive, lower(), found)
    },
  }
}
