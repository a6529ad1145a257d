/**
 * The thank-you line: follows, gifts and guards are gathered from the first one on for `everyMs`,
 * then told as one line (the template with `{thanks}` replaced by who gave what), so the room hears
 * at most one thank-you per window however many gifts arrive. Time comes from the injected clock.
 */
import type { ConnectorClock } from '../connector-host.js'
import type { BilibiliCommandResult } from './convert-bilibili-command.js'

export type ThankYouEvent =
  | { kind: 'follow'; name: string }
  | { kind: 'gift'; name: string; gift: string; count: number; value: number }
  | { kind: 'guard'; name: string; guard: string; count: number; value: number }

export interface ThankYouLine {
  text: string
  /** What the window's gifts and guards were worth together, in CNY. */
  value: number
}

export interface ThankYouWindow {
  add(event: ThankYouEvent): void
  close(): void
}

/** Viewers named in one line at most; the rest are counted. */
const namedViewersLimit = 10

export function createThankYouWindow(options: {
  everyMs: number
  template: string
  clock: ConnectorClock
  onLine(line: ThankYouLine): void
}): ThankYouWindow {
  let pending: ThankYouEvent[] = []
  let timer: unknown
  let closed = false

  const flush = () => {
    timer = undefined
    const events = pending
    pending = []
    if (events.length === 0 || closed) return
    const value = events.reduce((sum, event) => sum + (event.kind === 'follow' ? 0 : event.value), 0)
    options.onLine({
      text: options.template.replaceAll('{thanks}', describeThanks(events)),
      value: Math.round(value * 100) / 100,
    })
  }

  return {
    add(event) {
      if (closed) return
      pending.push(event)
      timer ??= options.clock.setTimer(flush, options.everyMs)
    },
    close() {
      closed = true
      if (timer !== undefined) options.clock.clearTimer(timer)
      timer = undefined
      pending = []
    },
  }
}

/** `张三 投喂 小花花 ×3、关注了直播间；李四 开通了舰长`: each viewer once, their gifts added up. */
export function describeThanks(events: readonly ThankYouEvent[]): string {
  const viewers = new Map<string, Map<string, number>>()
  for (const event of events) {
    let deeds = viewers.get(event.name)
    if (!deeds) {
      deeds = new Map()
      viewers.set(event.name, deeds)
    }
    const deed =
      event.kind === 'follow'
        ? '关注了直播间'
        : event.kind === 'gift'
          ? `投喂 ${event.gift}`
          : `开通了${event.guard}`
    deeds.set(deed, (deeds.get(deed) ?? 0) + (event.kind === 'follow' ? 0 : event.count))
  }
  const lines = [...viewers].slice(0, namedViewersLimit).map(([name, deeds]) => {
    const told = [...deeds].map(([deed, count]) => (count > 1 ? `${deed} ×${count}` : deed))
    return `${name} ${told.join('、')}`
  })
  const unnamed = viewers.size - namedViewersLimit
  if (unnamed > 0) lines.push(`还有 ${unnamed} 位观众`)
  return lines.join('；')
}

/** A follow, gift or guard as the thank-you line tells it; nothing for the rest. */
export function thankYouEventOf(result: BilibiliCommandResult): ThankYouEvent | undefined {
  if (result.kind === 'counted')
    return result.what === 'followed' && result.viewer?.name
      ? { kind: 'follow', name: result.viewer.name }
      : undefined
  if (result.kind !== 'message' || (result.from !== 'gift' && result.from !== 'guard')) return undefined
  const { speaker, gift } = result.message
  const name = speaker.name || speaker.id
  const count = result.count ?? 1
  const value = gift?.value ?? 0
  return result.from === 'gift'
    ? { kind: 'gift', name, gift: gift?.name ?? '礼物', count, value }
    : { kind: 'guard', name, guard: gift?.name ?? '舰长', count, value }
}
