/**
 * The page's connectors panel in a real browser against `charpipe serve`: a Bilibili room (a fake
 * danmaku server speaking the real packets) shows every count `GET /api/connectors` reports, each
 * in words — entries, follows, silver gifts, danmaku held back by `min_user_level`, thank-you lines —
 * and a OneBot connector its messages only. A count the server reports under a name the page has no
 * words for would show as its bare name, which this test refuses. A frame the OneBot link cannot
 * read is shown as such, by its reason, in the Pipeline tab and with the connector's session in the
 * Audience tab.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { danmakuCommand, giftCommand, interactCommand } from '../connectors/__fixtures__/bilibili-commands.js'
import { type FakeBilibiliLive, startFakeBilibiliLive } from '../connectors/fake-bilibili-live.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import {
  type BrowserTest,
  findBrowserSkipReason,
  openTestPage,
  type ServerUnderTest,
  startBrowserTest,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

const roomId = 21452505
const csrf = 'csrf-page-secret'
const cookie = `SESSDATA=sess-page-secret; bili_jct=${csrf}; DedeUserID=555; buvid3=b`

describe.skipIf(skipReason !== undefined)('the page shows every count of a connector', () => {
  let room: FakeBilibiliLive
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let page: Page

  beforeAll(async () => {
    room = await startFakeBilibiliLive({ roomId, ownerUid: 1, csrf })
    browserTest = await startBrowserTest({
      extraYaml: [
        'connectors:',
        '  bilibili:',
        '    - name: room',
        `      room_id: ${roomId}`,
        `      url: ${room.url}`,
        `      api_url: ${room.apiUrl}`,
        `      cookie: "${cookie}"`,
        '      min_user_level: 10',
        '  onebot:',
        '    - name: qq',
        '      listen: /onebot/rev',
        '      access_token: reverse-page-secret',
        '      groups: [789]',
        '',
      ].join('\n'),
    })
    server = browserTest.server
    page = await openTestPage(browserTest.browser)
  }, 60_000)

  let onebot: FakeOnebot | undefined

  afterAll(async () => {
    await onebot?.close()
    await browserTest?.stop()
    await room?.close()
  })

  it("words the room's counts in Chinese and English, and the OneBot connector's messages", async () => {
    await vi.waitFor(() => expect(room.connectedCount()).toBe(1), { timeout: 20_000 })
    // Counted without a turn: no model request, so the counts settle at once.
    room.send([
      interactCommand(1, 5001),
      interactCommand(1, 5002),
      interactCommand(2, 5003),
      giftCommand({ uid: 2002, coinType: 'silver', price: 100, tid: 'silver-1' }),
      danmakuCommand({ uid: 22, name: '小号', idStr: 'low', text: '小号路过', userLevel: 2 }),
    ])
    const roomStatus = async () => {
      const answer = await fetch(`${server.url}/api/connectors`).then((response) => response.json())
      return answer.connectors.find((connector: { name: string }) => connector.name === 'room')
    }
    await vi.waitFor(
      async () =>
        expect((await roomStatus()).counted).toEqual({
          entered: 2,
          followed: 1,
          silver_gift: 1,
          below_user_level: 1,
          thank_you: 0,
        }),
      { timeout: 20_000 },
    )

    await page.goto(`${server.url}/#pipeline`)
    const bilibili = page.locator('[data-section="connectors"] [data-connector="room"]')
    await bilibili.locator('[data-count]').first().waitFor()
    const countsOf = (connector: string) =>
      page
        .locator(`[data-section="connectors"] [data-connector="${connector}"] [data-count]`)
        .evaluateAll((spans) => spans.map((span) => [span.getAttribute('data-count'), span.textContent]))
    expect(await countsOf('room')).toEqual([
      ['messages_in', ' · 收到 1 条'],
      ['messages_out', ' · 发出 0 条'],
      ['counted.entered', ' · 进入 2'],
      ['counted.followed', ' · 关注 1'],
      ['counted.silver_gift', ' · 银瓜子礼物 1'],
      ['counted.below_user_level', ' · 用户等级不足未回复 1'],
      ['counted.thank_you', ' · 感谢 0 次'],
    ])
    expect(await countsOf('qq')).toEqual([
      ['messages_in', ' · 收到 0 条'],
      ['messages_out', ' · 发出 0 条'],
    ])

    await page.evaluate(() => localStorage.setItem('charpipe.language', 'en'))
    await page.reload()
    await bilibili.locator('[data-count]').first().waitFor()
    const english = await bilibili.innerText()
    expect(english).toContain('2 entered')
    expect(english).toContain('1 below the user level (not answered)')
    expect(english).toContain('0 thank-you lines')
    expect(await page.content()).not.toContain(csrf)
  })

  it('shows what the OneBot link could not read, by reason, in the Pipeline and Audience tabs', async () => {
    onebot = await startFakeOnebot({
      accessToken: 'reverse-page-secret',
      reverseUrl: `${server.url.replace('http', 'ws')}/onebot/rev`,
    })
    await vi.waitFor(() => expect(onebot?.connectedCount()).toBe(1), { timeout: 20_000 })
    onebot.sendRaw('this is not json')
    onebot.sendRaw('[1, 2, 3]')
    const qqStatus = async () => {
      const answer = await fetch(`${server.url}/api/connectors`).then((response) => response.json())
      return answer.connectors.find((connector: { name: string }) => connector.name === 'qq')
    }
    await vi.waitFor(async () => expect((await qqStatus()).malformed).toEqual({ bad_frame: 2 }), {
      timeout: 20_000,
    })

    await page.evaluate(() => localStorage.setItem('charpipe.language', 'zh'))
    // The page is on this tab already: a reload reads the counts again.
    await page.goto(`${server.url}/#pipeline`)
    await page.reload()
    const unreadable = page.locator(
      '[data-section="connectors"] [data-connector="qq"] [data-count="malformed.bad_frame"]',
    )
    expect(await unreadable.textContent()).toBe(' · 无法读取（bad_frame）2')

    // The link's group session, shown with the link's counts in the Audience tab.
    const session = 'onebot:qq:group:789'
    expect((await qqStatus()).sessions).toEqual([session])
    await page.goto(`${server.url}/#audience`)
    const picker = page.locator('[data-audience-session]')
    await picker.locator(`option[value="${session}"]`).waitFor({ state: 'attached' })
    await picker.selectOption(session)
    expect(await page.locator('[data-connector-counts="qq"]').textContent()).toContain(
      '无法读取（bad_frame）2',
    )
  })
})
