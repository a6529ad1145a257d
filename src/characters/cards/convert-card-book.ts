/**
 * A card's `character_book` as the character's lorebook, and back. What the lorebook has no field
 * for stays in `card` (the book's and each entry's) and is written back. Two card dialects carry an
 * entry's depth: SillyTavern's `extensions` (`position: 4`, `depth`, `role` 0-2) and V3's `@@depth` /
 * `@@role` decorators at the top of the content. Both are read; export always writes the
 * extensions, and the decorators for an entry that came with decorators. `use_regex` is read as
 * the writer meant it: as the V3 spec says (RisuAI and others), but not from SillyTavern, which
 * writes it on every entry and never reads it (see is-sillytavern-entry.ts).
 */

import type { LorebookConfig, LorebookEntryConfig } from '../../config/schema.js'
import type { CardBook, CardBookEntry } from './card-schema.js'
import { isSillyTavernEntry } from './is-sillytavern-entry.js'
import { loadCardLibrary } from './load-card-library.js'

const roles = ['system', 'user', 'assistant'] as const
/** SillyTavern's `extensions.position` for "at depth". */
const atDepth = 4

const entryFields = new Set([
  'keys',
  'secondary_keys',
  'content',
  'enabled',
  'insertion_order',
  'case_sensitive',
  'constant',
  'selective',
  'name',
  'position',
])
const bookFields = new Set(['scan_depth', 'token_budget', 'recursive_scanning', 'entries'])

function clampInt(value: number | null | undefined, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback
  return Math.min(max, Math.max(min, Math.round(value)))
}

/** The fields not in `used`; empty `extensions` are left out too, as export writes them anyway. */
function rest(object: Record<string, unknown>, used: ReadonlySet<string>): Record<string, unknown> {
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(object)) {
    if (used.has(key) || value === undefined || value === null) continue
    if (key === 'extensions' && typeof value === 'object' && Object.keys(value).length === 0) continue
    kept[key] = value
  }
  return kept
}

function readKeys(keys: readonly string[] | null | undefined, useRegex: boolean): string[] {
  const present = (keys ?? []).filter((key) => key.trim() !== '')
  // A V3 `use_regex` entry's keys are patterns; charpipe marks a pattern by writing it as /…/.
  return useRegex ? present.map((key) => (/^\/.+\/[a-z]*$/s.test(key) ? key : `/${key}/`)) : present
}

function readDecorators(content: string): {
  content: string
  decorators: string[]
  depth?: number
  role?: string
} {
  if (!content.startsWith('@@')) return { content, decorators: [] }
  const decorators: string[] = []
  let depth: number | undefined
  let role: string | undefined
  const stripped = loadCardLibrary().decorator.parse(content, (name, args) => {
    if (name === 'depth' && /^\d+$/.test(args[0] ?? '')) depth = Number(args[0])
    else if (name === 'role' && roles.includes(args[0] as (typeof roles)[number])) role = args[0]
    else decorators.push(`@@${name}${args.length ? ` ${args.join(',')}` : ''}`)
  })
  return { content: stripped, decorators, depth, role }
}

/** SillyTavern's matching fields of `extensions`: the entry's own fields hold them. */
const matchingExtensions = ['match_whole_words', 'case_sensitive']

function readFlag(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined
}

/** SillyTavern's placement fields of `extensions`: the entry's position, depth and role hold them. */
const placementExtensions = ['position', 'depth', 'role']
/** SillyTavern positions charpipe places as its own: before (0) / after (1) the character, at depth (4). */
const ownPositions = new Set([0, 1, atDepth])

function convertEntry(entry: CardBookEntry): LorebookEntryConfig {
  const card = rest(entry, entryFields)
  if (card.use_regex === false) delete card.use_regex
  const extensions = (entry.extensions ?? {}) as Record<string, unknown>
  // Other SillyTavern positions (author's note, example messages, outlets) have no place in charpipe:
  // the entry goes by its before_char/after_char, and the position is kept to be written back.
  const foreignPosition = typeof extensions.position === 'number' && !ownPositions.has(extensions.position)
  const otherExtensions = rest(
    extensions,
    new Set([...(foreignPosition ? ['depth', 'role'] : placementExtensions), ...matchingExtensions]),
  )
  if (Object.keys(otherExtensions).length > 0) card.extensions = otherExtensions
  else delete card.extensions
  const decorated = readDecorators(entry.content)
  if (decorated.content !== entry.content) card.decorators = decorated.decorators
  const stDepth = extensions.position === atDepth
  const depth = decorated.depth ?? (stDepth ? (extensions.depth as number | undefined) : undefined)
  const roleIndex = typeof extensions.role === 'number' ? extensions.role : 0
  const keysArePatterns = entry.use_regex === true && !isSillyTavernEntry(extensions)
  return {
    name: entry.name ?? '',
    keys: readKeys(entry.keys, keysArePatterns),
    secondary_keys: readKeys(entry.secondary_keys, keysArePatterns),
    selective: entry.selective ?? false,
    constant: entry.constant ?? false,
    case_sensitive: entry.case_sensitive ?? readFlag(extensions.case_sensitive) ?? false,
    // SillyTavern's default when the card leaves it open (null): whole words.
    match_whole_words: readFlag(extensions.match_whole_words) ?? true,
    enabled: entry.enabled ?? true,
    content: decorated.content,
    insertion_order: clampInt(entry.insertion_order, 100, -1_000_000, 1_000_000),
    position:
      depth !== undefined || stDepth
        ? 'depth'
        : entry.position === 'after_char'
          ? 'after_char'
          : 'before_char',
    depth: clampInt(depth, 4, 0, 1000),
    role: (decorated.role as LorebookEntryConfig['role'] | undefined) ?? roles[roleIndex] ?? 'system',
    card,
  }
}

export function convertCardBookToLorebook(book: CardBook): LorebookConfig {
  return {
    scan_depth: clampInt(book.scan_depth, 4, 0, 1000),
    token_budget: clampInt(book.token_budget, 1024, 0, 1_000_000),
    recursive: book.recursive_scanning ?? false,
    entries: (book.entries ?? []).map(convertEntry),
    card: rest(book, bookFields),
  }
}

function writeKeys(keys: readonly string[], useRegex: boolean): string[] {
  return useRegex ? keys.map((key) => key.replace(/^\/(.+)\/$/s, '$1')) : [...keys]
}

function writeEntry(entry: LorebookEntryConfig): Record<string, unknown> {
  const { decorators, ...card } = entry.card
  const useRegex = card.use_regex === true
  const kept = (card.extensions as Record<string, unknown> | undefined) ?? {}
  // SillyTavern's entries keep their keys as written (its `/…/` form is a pattern there too).
  const keysArePatterns = useRegex && !isSillyTavernEntry(kept)
  const position = entry.position === 'depth' ? atDepth : entry.position === 'after_char' ? 1 : 0
  const extensions = {
    ...kept,
    position: typeof kept.position === 'number' && entry.position !== 'depth' ? kept.position : position,
    depth: entry.depth,
    role: roles.indexOf(entry.role),
    match_whole_words: entry.match_whole_words,
    case_sensitive: entry.case_sensitive,
  }
  let content = entry.content
  if (Array.isArray(decorators)) {
    const lines = decorators.filter((line): line is string => typeof line === 'string')
    if (entry.position === 'depth') lines.unshift(`@@depth ${entry.depth}`, `@@role ${entry.role}`)
    content = [...lines, content].join('\n')
  }
  return {
    ...card,
    keys: writeKeys(entry.keys, keysArePatterns),
    secondary_keys: writeKeys(entry.secondary_keys, keysArePatterns),
    content,
    extensions,
    enabled: entry.enabled,
    insertion_order: entry.insertion_order,
    case_sensitive: entry.case_sensitive,
    use_regex: useRegex,
    constant: entry.constant,
    selective: entry.selective,
    ...(entry.name ? { name: entry.name } : {}),
    position: entry.position === 'after_char' ? 'after_char' : 'before_char',
  }
}

export function convertLorebookToCardBook(lorebook: LorebookConfig): Record<string, unknown> {
  return {
    ...lorebook.card,
    extensions: (lorebook.card.extensions as Record<string, unknown> | undefined) ?? {},
    scan_depth: lorebook.scan_depth,
    token_budget: lorebook.token_budget,
    recursive_scanning: lorebook.recursive,
    entries: lorebook.entries.map(writeEntry),
  }
}
