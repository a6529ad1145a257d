import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { describeConnectorCounts } from './describe-connector-counts.js'
import { setLanguage } from './i18n.js'

afterEach(() => setLanguage('zh'))

// A Bilibili room's status as GET /api/connectors reports it (create-bilibili-connector.ts).
const bilibiliRoom = {
  messages_in: 120,
  messages_out: 9,
  messages_refused: 2,
  counted: { entered: 40, followed: 3, silver_gift: 7, below_user_level: 11, thank_you: 4 },
}

describe('describeConnectorCounts', () => {
  it("words every count of a Bilibili room, the messages first, then the room's events", () => {
    setLanguage('en')
    expect(describeConnectorCounts(bilibiliRoom).map(({ field, text }) => [field, text])).toEqual([
      ['messages_in', '120 in'],
      ['messages_out', '9 out'],
      ['messages_refused', '2 refused (dropped)'],
      ['counted.entered', '40 entered'],
      ['counted.followed', '3 followed'],
      ['counted.silver_gift', '7 silver gifts'],
      ['counted.below_user_level', '11 below the user level (not answered)'],
      ['counted.thank_you', '4 thank-you lines'],
    ])
    setLanguage('zh')
    expect(describeConnectorCounts(bilibiliRoom).map(({ text }) => text)).toEqual([
      '收到 120 条',
      '发出 9 条',
      '2 条未被接收（已丢弃）',
      '进入 40',
      '关注 3',
      '银瓜子礼物 7',
      '用户等级不足未回复 11',
      '感谢 4 次',
    ])
  })

  it('shows the zeros the server reports and leaves out what it does not report (Twitch, OneBot)', () => {
    setLanguage('en')
    const twitchChannel = { messages_in: 0, messages_out: 0 }
    expect(describeConnectorCounts(twitchChannel)).toEqual([
      { field: 'messages_in', count: 0, text: '0 in' },
      { field: 'messages_out', count: 0, text: '0 out' },
    ])
    const quietRoom = { messages_in: 5, messages_out: 1, counted: { below_user_level: 0, entered: 2 } }
    expect(describeConnectorCounts(quietRoom).map(({ field }) => field)).toEqual([
      'messages_in',
      'messages_out',
      'counted.entered',
      'counted.below_user_level',
    ])
  })

  it('keeps a count the page has no words for yet, by its own name, after the known ones', () => {
    setLanguage('en')
    const status = {
      messages_in: 1,
      messages_out: 0,
      counted: { guard_renewed: 2, followed: 1, constructor: 3, broken: 'x' as unknown as number },
    }
    expect(describeConnectorCounts(status).map(({ text }) => text)).toEqual([
      '1 in',
      '0 out',
      '1 followed',
      'guard_renewed 2',
      'constructor 3',
    ])
  })

  it('words what could not be read, by reason, after the other counts', () => {
    const status = { messages_in: 3, messages_out: 1, malformed: { not_json: 4, bad_frame: 1 } }
    setLanguage('en')
    expect(describeConnectorCounts(status).map(({ field, text }) => [field, text])).toEqual([
      ['messages_in', '3 in'],
      ['messages_out', '1 out'],
      ['malformed.bad_frame', '1 unreadable (bad_frame)'],
      ['malformed.not_json', '4 unreadable (not_json)'],
    ])
    setLanguage('zh')
    expect(describeConnectorCounts(status).at(-1)?.text).toBe('无法读取（not_json）4')
  })

  it('describes any malformed map: one line per numeric count, each naming its reason and count', () => {
    setLanguage('en')
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.nat(), fc.string())), (malformed) => {
        const status = { messages_in: 0, messages_out: 0, malformed: malformed as Record<string, number> }
        const described = describeConnectorCounts(status)
        const lines = described.filter(({ field }) => field.startsWith('malformed.'))
        const numeric = Object.keys(malformed).filter((reason) => typeof malformed[reason] === 'number')
        expect(lines.map(({ field }) => field.slice('malformed.'.length)).sort()).toEqual(numeric.sort())
        for (const line of lines) expect(line.text).toContain(String(line.count))
      }),
    )
  })
})
