/**
 * lorebook (270): the current character's lorebook (world info, a card's `character_book`). Scans
 * the newest `scan_depth` messages, the input included, for each enabled entry's keys and leaves
 * the entries to inject on `sharedData` for the assembler, which puts them before or after the
 * persona or at their depth in the history. Scanning is one pass over the text for all plain keys
 * (see `createKeywordScanner`) plus one linear RE2 run per `/regex/` key, within a budget of work
 * per turn (see `compileLorebook`).
 */
import type { LorebookEntryConfig } from '../../config/schema.js'
import { messageText } from '../../shared/messages.js'
import { selectLorebookEntries } from '../lorebook/select-lorebook-entries.js'
import type { ContextProcessor } from '../types.js'
import { checkType, readNumber } from './read-settings.js'

/** sharedData key: the `LorebookEntryConfig[]` to inject, in placement order. */
export const lorebookEntriesKey = 'lorebook.entries'

const maxRecursionLimit = 10

export const lorebook: ContextProcessor = {
  id: 'lorebook',
  name: '世界书',
  description:
    "Injects the character's lorebook entries whose keys appear in the newest messages, within the lorebook's token budget.",
  priority: 270,
  defaultEnabled: true,
  configFields: [
    {
      key: 'max_recursion',
      label: 'Recursion rounds',
      type: 'number',
      min: 0,
      max: maxRecursionLimit,
      integer: true,
      default: 3,
      description: 'With a recursive lorebook: how many rounds injected entries may trigger other entries.',
    },
  ],
  validateSettings(settings) {
    return [checkType(settings, 'max_recursion', 'number')].filter((issue) => issue !== undefined)
  },
  execute(context, settings) {
    const book = context.character.lorebook
    if (book.entries.length === 0) return
    const scanned =
      book.scan_depth === 0
        ? []
        : context.messages
            .filter((message) => message.source === 'history' || message.source === 'input')
            .slice(-book.scan_depth)
    const text = scanned.map((message) => messageText(message)).join('\n')
    const result = selectLorebookEntries({
      lorebook: book,
      text,
      countTokens: (content) => context.services.tokenCounter.countText(content),
      maxRecursion: Math.min(maxRecursionLimit, Math.max(0, readNumber(settings, 'max_recursion', 3))),
    })
    for (const problem of result.problems)
      context.logs.push({ processorId: 'lorebook', level: 'warn', message: problem })
    // A lorebook that spends the whole scan budget is the operator's to know about, not only the preview's.
    if (result.skippedPatterns > 0)
      context.services.logger.warn(
        { processor: 'lorebook', skipped: result.skippedPatterns },
        `lorebook: the pattern keys' scan stopped at its budget; ${result.skippedPatterns} pattern key runs left out`,
      )
    if (result.dropped.length > 0)
      context.logs.push({
        processorId: 'lorebook',
        level: 'info',
        message: `${result.dropped.length} triggered entries left out: past the token budget of ${book.token_budget}`,
        details: result.dropped.map(describeEntry),
      })
    if (result.entries.length === 0) return
    context.sharedData.set(lorebookEntriesKey, result.entries)
    context.logs.push({
      processorId: 'lorebook',
      level: 'info',
      message: `injected ${result.entries.length} of ${book.entries.length} entries`,
      details: result.entries.map(describeEntry),
    })
  },
}

function describeEntry(entry: LorebookEntryConfig) {
  return { name: entry.name, keys: entry.keys, position: entry.position, order: entry.insertion_order }
}
