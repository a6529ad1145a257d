/**
 * How large a character may be, wherever it comes from (config file, admin API, a card, a file of
 * `characters_dir`). Generous for real cards (the longest descriptions seen are tens of thousands of
 * characters, big lorebooks a few thousand entries) and small enough that one character cannot
 * stall a turn or fill the memory: the lorebook's keys are compiled into one scanner, so their total
 * length bounds its size and the scan's cost; a pattern's cost is the size of its program, bounded
 * on its own and for the lorebook; the entries bound each turn's selection.
 */
export const characterLimits = {
  /** Characters of a name (the character's, the user's). */
  nameChars: 200,
  /** Characters of one long text: persona, scenario, a greeting, a card's prompts and notes. */
  textChars: 100_000,
  /** Greetings besides the first one. */
  greetings: 200,
  /** Messages of example dialogue. */
  injectedMessages: 500,
  /** Entries of a lorebook. */
  lorebookEntries: 5_000,
  /** Keys (primary and secondary each) of one entry. */
  keysPerEntry: 100,
  /** Characters of one key (a word or a /pattern/). */
  keyChars: 500,
  /** Characters of all keys of one lorebook together. */
  lorebookKeyChars: 250_000,
  /**
   * Instructions of the program one pattern compiles to (a `/regex/` key, a regex rule): scanning a
   * character with it costs up to this many steps, so a larger one is refused.
   */
  patternInstructions: 1_000,
  /** Instructions of all `/regex/` keys of one lorebook together: bounds the time compiling them takes. */
  lorebookPatternInstructions: 50_000,
  /** Characters of one entry's content. */
  entryContentChars: 50_000,
  /** Characters of all entries' content of one lorebook together. */
  lorebookContentChars: 5_000_000,
  /** Bytes of a character's picture (a card's PNG, an avatar file). */
  avatarBytes: 16 * 1024 * 1024,
} as const
