import { describe, expect, it } from 'vitest'
import { audienceSchema } from '../config/schema/audience.js'
import { createManualClock } from '../testing/create-manual-clock.js'
import { createAudienceSelector } from './create-audience-selector.js'
import type { AudienceMessage, AudienceRole } from './types.js'

let counter = 0
const message = (
  text: string,
  speaker = 'viewer-1',
  role: AudienceRole = 'viewer',
  extra: Partial<AudienceMessage> = {},
): AudienceMessage => ({
  id: `m${++counter}`,
  speaker: { id: speaker, name: speaker, role },
  text,
  ...extra,
})

const setUp = (policy: Record<string, unknown> = {}) => {
  const clock = createManualClock()
  const parsed = audienceSchema.parse(policy)
  const selector = createAudienceSelector({ clock, readPolicy: () => parsed, readNames: () => ['小助手'] })
  return { clock, selector }
}

/** A selector remembering `memoryLimit` ids and speakers; `offer` also reads the reasons it got. */
const setUpWithMemory = (memoryLimit: number) => {
  const clock = createManualClock()
  const policy = audienceSchema.parse({ dedupe_window_ms: 0 })
  const selector = createAudienceSelector({
    clock,
    readPolicy: () => policy,
    readNames: () => [],
    memoryLimit,
  })
  const offer = (id: string, speaker: string) => {
    const result = selector.offer({ id, speaker: { id: speaker }, text: `line ${id}` })
    const reasons = selector.waiting()[0]?.reasons ?? []
    for (const entry of selector.waiting()) selector.remove(entry.message.id)
    return { ...result, reasons }
  }
  return { offer }
}

describe('audience selector', () => {
  it('answers the owner, a gift and a mention before plain chat, in the order they were said', () => {
    const { selector } = setUp({ batch_max: 3 })
    selector.offer(message('hello', 'a'))
    const gift = message('for you', 'b', 'viewer', { gift: { name: 'rocket', value: 10 } })
    const owner = message('next game', 'owner', 'owner')
    const mention = message('小助手 sing', 'c')
    for (const each of [gift, owner, mention]) selector.offer(each)
    selector.offer(message('hi', 'd'))
    const { batch } = selector.takeBatch()
    expect(batch.map((entry) => entry.message.id)).toEqual([gift.id, owner.id, mention.id])
    expect(selector.waiting()).toHaveLength(2)
  })

  it("adds an origin's bonus with its reason, and observes without answering what it says not to", () => {
    const { selector } = setUp({ batch_max: 1 })
    const fan = message('晚上好', 'fan')
    const stranger = message('晚上好呀', 'stranger')
    const newcomer = message('主播好', 'newcomer')
    const weigh = (each: AudienceMessage) =>
      each.id === fan.id
        ? { bonus: 12, reason: 'medal' }
        : each.id === newcomer.id
          ? { answer: false }
          : undefined
    selector.offer(stranger, { weigh })
    expect(selector.offer(newcomer, { weigh })).toEqual({ observe: true, queued: false, dropped: [] })
    selector.offer(fan, { weigh })
    const [first] = selector.waiting()
    expect(first).toMatchObject({ message: { id: fan.id }, priority: 1 + 10 + 12 })
    expect(first?.reasons).toEqual(['first_message', 'medal'])
    expect(selector.waiting().map((entry) => entry.message.id)).toEqual([fan.id, stranger.id])
    // Under reply: every the bonus does not reorder; a message kept from answers stays kept.
    const every = setUp({ reply: 'every' }).selector
    every.offer(message('one', 'x'), { weigh: () => undefined })
    every.offer(message('two', 'y'), { weigh: () => ({ bonus: 50, reason: 'medal' }) })
    expect(every.waiting().map((entry) => entry.message.text)).toEqual(['one', 'two'])
    expect(every.offer(message('three', 'z'), { weigh: () => ({ answer: false }) }).queued).toBe(false)
  })

  it('among messages of equal weight, takes the larger gift first (super chats by their price)', () => {
    const { selector } = setUp({ batch_max: 1 })
    const small = message('唱歌吗', 'a', 'viewer', { gift: { name: '醒目留言', value: 30 } })
    const large = message('唱歌吗', 'b', 'viewer', { gift: { name: '醒目留言', value: 100 } })
    const middle = message('唱歌吗', 'c', 'viewer', { gift: { name: '醒目留言', value: 50 } })
    for (const each of [small, large, middle]) selector.offer(each)
    const order = [1, 2, 3].map(() => selector.takeBatch().batch[0]?.message.id)
    expect(order).toEqual([large.id, middle.id, small.id])
  })

  it('keeps at most queue_max waiting, dropping the lowest priority, never the newest important one', () => {
    const { selector } = setUp({ queue_max: 3 })
    const plain = [1, 2, 3].map((index) => message(`msg ${index}`, `v${index}`))
    for (const each of plain) selector.offer(each)
    const moderator = message('calm down', 'mod', 'moderator')
    const result = selector.offer(moderator)
    expect(result).toMatchObject({ queued: true, observe: true })
    expect(result.dropped).toEqual([{ id: plain[0]!.id, reason: 'queue_full' }])
    // A newcomer less important than everyone waiting is the one dropped (it stays observed).
    selector.takeBatch()
    for (const each of [1, 2, 3].map((index) => message(`question ${index}?`, `q${index}`)))
      selector.offer(each)
    const late = message('me again', 'v1')
    expect(selector.offer(late)).toEqual({
      observe: true,
      queued: false,
      dropped: [{ id: late.id, reason: 'queue_full' }],
    })
    expect(selector.waiting()).toHaveLength(3)
  })

  it('drops what waited past max_wait_ms as too_old', async () => {
    const { clock, selector } = setUp({ max_wait_ms: 1000 })
    const old = message('old')
    selector.offer(old)
    await clock.advance(1001)
    const fresh = message('fresh', 'other')
    selector.offer(fresh)
    const { batch, dropped } = selector.takeBatch()
    expect(dropped).toEqual([{ id: old.id, reason: 'too_old' }])
    expect(batch.map((entry) => entry.message.id)).toEqual([fresh.id])
    // Said long ago (`at`), it is too old on arrival.
    const replayed = message('replayed', 'r', 'viewer', { at: new Date(clock.now() - 5000).toISOString() })
    expect(selector.offer(replayed)).toMatchObject({
      observe: true,
      queued: false,
      dropped: [{ reason: 'too_old' }],
    })
  })

  it('collapses duplicates and floods of one speaker within the window, and resends of an id', async () => {
    const { clock, selector } = setUp({ dedupe_window_ms: 10_000 })
    const first = message('666', 'spammer')
    expect(selector.offer(first).queued).toBe(true)
    expect(selector.offer(message('6 6 6!', 'spammer'))).toEqual({
      observe: false,
      queued: false,
      dropped: [{ id: expect.any(String), reason: 'duplicate' }],
    })
    // Another text of the same speaker: observed, but one of theirs waits at a time.
    expect(selector.offer(message('lol', 'spammer'))).toMatchObject({ observe: true, queued: false })
    // A more important one replaces the waiting one.
    const question = message('小助手 how old are you?', 'spammer')
    expect(selector.offer(question).dropped).toEqual([{ id: first.id, reason: 'duplicate' }])
    expect(selector.offer({ ...question })).toMatchObject({
      observe: false,
      dropped: [{ reason: 'duplicate' }],
    })
    await clock.advance(10_001)
    expect(selector.offer(message('666', 'spammer')).observe).toBe(true)
  })

  it('remembers the most recent memoryLimit ids: an older one is no longer a duplicate', () => {
    const { offer } = setUpWithMemory(3)
    for (const id of ['a', 'b', 'c']) offer(id, id)
    // Offered again within the last three ids: a duplicate (and still the oldest remembered).
    expect(offer('a', 'a').dropped).toEqual([{ id: 'a', reason: 'duplicate' }])
    offer('d', 'd')
    expect(offer('a', 'a').dropped).toEqual([])
    expect(offer('c', 'c').dropped).toEqual([{ id: 'c', reason: 'duplicate' }])
  })

  it('remembers the most recent memoryLimit speakers, one who spoke again counted as recent', () => {
    const { offer } = setUpWithMemory(2)
    const isFirstMessage = (speaker: string) =>
      offer(`m${++counter}`, speaker).reasons.includes('first_message')
    expect([isFirstMessage('p'), isFirstMessage('q'), isFirstMessage('p')]).toEqual([true, true, false])
    // `r` makes three: `q`, the least recent, is forgotten, and is new again when it returns.
    expect([isFirstMessage('r'), isFirstMessage('p'), isFirstMessage('q')]).toEqual([true, false, true])
  })

  it('drops blocked words whatever their case, width or spacing', () => {
    const { selector } = setUp({ blocked_words: ['badword'] })
    for (const text of ['BADWORD', 'ｂａｄｗｏｒｄ', 'b a d-w o r d', 'so badword.']) {
      expect(selector.offer(message(text, text)).dropped).toEqual([
        { id: expect.any(String), reason: 'blocked' },
      ])
    }
    expect(selector.waiting()).toEqual([])
  })

  it('reply modes: mentions only, every message in turn, none', () => {
    const mentions = setUp({ reply: 'mentions' }).selector
    expect(mentions.offer(message('hello')).queued).toBe(false)
    expect(mentions.offer(message('@小助手 hello', 'b')).queued).toBe(true)
    const every = setUp({ reply: 'every', batch_max: 1 }).selector
    const early = message('first', 'a')
    every.offer(early)
    every.offer(message('second', 'owner', 'owner'))
    expect(every.takeBatch().batch[0]!.message.id).toBe(early.id)
    const none = setUp({ reply: 'none' }).selector
    expect(none.offer(message('小助手?', 'owner', 'owner'))).toEqual({
      observe: true,
      queued: false,
      dropped: [],
    })
  })

  it('a pinned message goes first and is never dropped for room; remove takes one out', () => {
    const { selector } = setUp({ queue_max: 2, batch_max: 1 })
    const plain = message('plain', 'a')
    selector.offer(plain)
    expect(selector.pin(plain.id)).toBe(true)
    selector.offer(message('owner', 'o', 'owner'))
    const other = message('moderator', 'm', 'moderator')
    expect(selector.offer(other).dropped).toEqual([{ id: other.id, reason: 'queue_full' }])
    const owner = selector.waiting().find((entry) => entry.message.speaker.role === 'owner')!
    expect(selector.remove(owner.message.id)).toBe(true)
    expect(selector.remove(owner.message.id)).toBe(false)
    expect(selector.takeBatch().batch[0]!.message.id).toBe(plain.id)
  })

  it('takes only messages whose origin pays for the turn, one turn per origin, and defers the rest', () => {
    const { selector } = setUp({ batch_max: 4, reply: 'every' })
    let aTurns = 1
    let aAsked = 0
    const originA = () => {
      aAsked++
      if (aTurns === 0) return { ok: false as const, retryAfterMs: 42_000 }
      aTurns--
      return { ok: true as const }
    }
    const originB = () => ({ ok: false as const, retryAfterMs: 7_000 })
    const fromA = [message('one', 'a1'), message('two', 'a2'), message('three', 'a3')]
    const fromB = message('four', 'b1')
    for (const each of fromA) selector.offer(each, { admitTurn: originA })
    selector.offer(fromB, { admitTurn: originB })
    const first = selector.takeBatch()
    // A paid once for its three lines; B's line waits for B's budget.
    expect(first.batch.map((entry) => entry.message.id)).toEqual(fromA.map((each) => each.id))
    expect(aAsked).toBe(1)
    expect(first.deferredMs).toBeUndefined()
    expect(selector.waiting().map((entry) => entry.message.id)).toEqual([fromB.id])
    const second = selector.takeBatch()
    expect(second).toEqual({ batch: [], dropped: [], deferredMs: 7_000 })
    expect(selector.isWaiting(fromB.id)).toBe(true)
  })

  it("keeps ids and speakers apart per source: one source never makes another's message a duplicate", () => {
    const { selector } = setUp({ batch_max: 4, reply: 'every' })
    const first = { id: 'reused', speaker: { id: 'viewer-1' }, text: 'hello there' }
    expect(selector.offer(first, { source: 'client:a' })).toMatchObject({ queued: true, dropped: [] })
    // The same id, speaker and words from another source wait too.
    expect(selector.offer({ ...first }, { source: 'connector:onebot:qq' })).toMatchObject({
      queued: true,
      dropped: [],
    })
    // Within one source the id is still a duplicate.
    expect(selector.offer({ ...first, text: 'again' }, { source: 'client:a' }).dropped).toEqual([
      { id: 'reused', reason: 'duplicate' },
    ])
    expect(selector.takeBatch().batch).toHaveLength(2)
  })
})
