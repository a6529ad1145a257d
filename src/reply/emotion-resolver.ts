/**
 * Maps the emotion labels a model writes to the configured ones: a configured label as is, then the
 * alias table (exact, then case-insensitive: `Happy` → 开心), then the default emotions' names in
 * either language (`afraid` → 害怕, see `shared/language/emotion-labels.ts`: an English character is
 * shown the English names of its labels). Anything else becomes the default
 * emotion: clients (avatars, TTS voices, pages) only ever receive a label from the configured set,
 * never text the model made up. Unknown labels are logged once per label list and alias table (so
 * once per config, not once per reply), so a prompt that drifts from the list is visible without
 * flooding the log.
 */
import { findEmotionByName } from '../shared/language/index.js'

export interface EmotionResolverOptions {
  /** What an unknown label becomes. */
  defaultEmotion: string
  emotions: readonly string[]
  aliases: Readonly<Record<string, string>>
  log: (level: 'debug' | 'warn', message: string) => void
}

export interface EmotionResolver {
  /** The configured label for `label` (itself or through an alias), or undefined when unknown. */
  find(label: string): string | undefined
  /** Like `find`, but an unknown label becomes the default emotion (and is logged once at `level`). */
  resolve(label: string, level: 'debug' | 'warn'): string
  /** Logs an unknown label once without resolving it. */
  reportUnknown(label: string, level: 'debug' | 'warn'): void
}

interface LabelTables {
  configured: Set<string>
  aliases: Map<string, string>
  lowerAliases: Map<string, string>
  /** Unknown labels already logged; bounded so a model inventing labels cannot grow it forever. */
  reported: Set<string>
}

const mostReportedLabels = 256

// The tables of a label list and alias table, shared by every reply that uses the same two objects
// (the engine passes the config's own, which a reload replaces rather than changes).
const tablesByEmotions = new WeakMap<readonly string[], WeakMap<object, LabelTables>>()

function readTables(emotions: readonly string[], aliases: Readonly<Record<string, string>>): LabelTables {
  let byAliases = tablesByEmotions.get(emotions)
  if (!byAliases) {
    byAliases = new WeakMap()
    tablesByEmotions.set(emotions, byAliases)
  }
  let tables = byAliases.get(aliases)
  if (!tables) {
    tables = {
      configured: new Set(emotions),
      aliases: new Map(Object.entries(aliases)),
      lowerAliases: new Map(
        Object.entries(aliases).map(([alias, configured]) => [alias.toLowerCase(), configured]),
      ),
      reported: new Set(),
    }
    byAliases.set(aliases, tables)
  }
  return tables
}

/** Creates the label resolver of one reply. */
export function createEmotionResolver(options: EmotionResolverOptions): EmotionResolver {
  // Read on the first lookup: a parser is created per reply, and a plain reply never looks up.
  let tables: LabelTables | undefined

  const find = (label: string): string | undefined => {
    tables ??= readTables(options.emotions, options.aliases)
    const trimmed = label.trim()
    if (tables.configured.has(trimmed)) return trimmed
    return (
      tables.aliases.get(trimmed) ??
      tables.lowerAliases.get(trimmed.toLowerCase()) ??
      findEmotionByName(trimmed, tables.configured)
    )
  }

  const reportUnknown = (label: string, level: 'debug' | 'warn') => {
    tables ??= readTables(options.emotions, options.aliases)
    const reported = tables.reported
    if (reported.has(label) || reported.size >= mostReportedLabels) return
    reported.add(label)
    options.log(
      level,
      `unknown emotion label ${JSON.stringify(label.slice(0, 40))}: not configured and no alias; using ${JSON.stringify(options.defaultEmotion)}`,
    )
  }

  return {
    find,
    reportUnknown,
    resolve(label, level) {
      const found = find(label)
      if (found !== undefined) return found
      reportUnknown(label.trim(), level)
      return options.defaultEmotion
    },
  }
}
