/**
 * The counts of one connector (`GET /api/connectors`) in the page's language: the messages in and out,
 * the ones the host refused, and what a Bilibili room counted without a turn (entries, follows,
 * silver gifts, danmaku below `min_user_level`, thank-you lines), and what it received that could not
 * be read (`malformed`, by reason code). One table names every count the server reports; a count the
 * server adds later is still shown, by its own name, until it gets words.
 */
import { translate } from './i18n.js'
import type { MessageKey } from './page-messages.js'

/** The counts of a connector's status as the server sends them (the page reads it over HTTP). */
export interface ConnectorCounts {
  messages_in: number
  messages_out: number
  /** Present once the host refused a message (a full queue, a turn limit). */
  messages_refused?: number
  /** Platform events counted without a turn; only Bilibili reports them today. */
  counted?: Record<string, number>
  /** What could not be read, dropped and counted by reason (`not_json`, `truncated`, …). */
  malformed?: Record<string, number>
}

export interface ConnectorCountDescription {
  /** The status field: `messages_in`, `counted.<name>` for a counted event, `malformed.<reason>`. */
  field: string
  count: number
  /** The count in words, the number included. */
  text: string
}

const messageCountTexts: Record<'messages_in' | 'messages_out' | 'messages_refused', MessageKey> = {
  messages_in: 'connectors.count.messages_in',
  messages_out: 'connectors.count.messages_out',
  messages_refused: 'connectors.count.messages_refused',
}

const countedEventTexts: Record<string, MessageKey> = {
  entered: 'connectors.count.entered',
  followed: 'connectors.count.followed',
  silver_gift: 'connectors.count.silver_gift',
  below_user_level: 'connectors.count.below_user_level',
  thank_you: 'connectors.count.thank_you',
}

/** Every count the status carries, in the table's order, each in words. */
export function describeConnectorCounts(status: ConnectorCounts): ConnectorCountDescription[] {
  const described: ConnectorCountDescription[] = []
  for (const [field, key] of Object.entries(messageCountTexts)) {
    const count = status[field as keyof typeof messageCountTexts]
    if (typeof count === 'number') described.push({ field, count, text: translate(key, { count }) })
  }
  const counted = status.counted ?? {}
  // Own keys only: a counted event named like an Object method is still an unknown one.
  const hasWords = (name: string) => Object.hasOwn(countedEventTexts, name)
  const names = Object.keys(counted).filter((name) => typeof counted[name] === 'number')
  const ordered = [
    ...Object.keys(countedEventTexts).filter((name) => names.includes(name)),
    ...names.filter((name) => !hasWords(name)),
  ]
  for (const name of ordered) {
    const count = counted[name] as number
    const text = hasWords(name)
      ? translate(countedEventTexts[name] as MessageKey, { count })
      : `${name} ${count}`
    described.push({ field: `counted.${name}`, count, text })
  }
  const malformed = status.malformed ?? {}
  // The reasons are codes the docs list (docs/connectors.md); shown as they are, with one word.
  for (const reason of Object.keys(malformed).sort()) {
    const count = malformed[reason]
    if (typeof count !== 'number') continue
    const text = translate('connectors.count.malformed', { count, reason })
    described.push({ field: `malformed.${reason}`, count, text })
  }
  return described
}
