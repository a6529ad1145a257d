/**
 * Whether a card's lorebook entry was written by SillyTavern. SillyTavern exports `use_regex: true`
 * on every entry, plain keys included, and never reads the flag back: its keys are patterns only
 * when written as `/…/flags`, the others plain words matched by its whole-word and case settings.
 * Read as the V3 spec says, `wood` would become a pattern matching "Hollywood" and `eldoria` a
 * case-sensitive one missing "Eldoria". Its entries are told apart by the world-info fields it
 * always writes into the entry's `extensions` (no other writer uses these names).
 */

/** Fields of SillyTavern's world info that its export puts in every entry's `extensions`. */
const sillyTavernFields = ['selectiveLogic', 'display_index', 'exclude_recursion', 'useProbability']

export function isSillyTavernEntry(
  extensions: Readonly<Record<string, unknown>> | null | undefined,
): boolean {
  if (!extensions) return false
  return sillyTavernFields.some((field) => Object.hasOwn(extensions, field))
}
