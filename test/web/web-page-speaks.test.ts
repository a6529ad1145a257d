/**
 * When the character speaks, in a real browser against `charpipe serve` with the mock model: a turn
 * that ends in silence is a quiet marker (live and read back from the history), never an empty bubble
 * or the `[silence]` signal; a thought is folded above the reply and never in its sentences; the
 * owner's say box makes the character say its words as its reply, an event is a centred note (live
 * and from the history), and a server without the endpoints (an older one: 404) is told in words.
 */
import type { Page, Request } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type BrowserTest,
  findBrowserSkipReason,
  openTestPage,
  type ServerUnderTest,
  silenceTrigger,
  startBrowserTest,
  thoughtReplyText,
  thoughtText,
  thoughtTrigger,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

// The character thinks before it speaks, and a client's own input may end in silence.
const speakingCharacterYaml = `character:
  name: 小测
  persona: 一个乐于助人的测试角色。
  thoughts: true
conversation:
  silence:
    triggers: [input]
`

describe.skipIf(skipReason !== undefined)('the page shows silence, thoughts, say and events', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let page: Page

  beforeAll(async () => {
    browserTest = await startBrowserTest({ withCharacter: false, extraYaml: speakingCharacterYaml })
    server = browserTest.server
    page = await openTestPage(browserTest.browser)
  }, 60_000)

  afterAll(() => browserTest?.stop())

  // A test that plays the server's answers (page.route) leaves none behind for the next one.
  beforeEach(() => page.unrouteAll())

  const openChat = async (session: string) => {
    await page.goto(`${server.url}/#chat`)
    await page.evaluate((name) => localStorage.setItem('charpipe.session', name), session)
    await page.reload()
    await page.locator('.dot-open').waitFor()
  }

  const send = async (text: string) => {
    const before = await page.locator('.turn').count()
    await page.fill('input[name="chat-text"]', text)
    await page.click('[data-action="send"]')
    const turn = page.locator('.turn').nth(before)
    await turn.locator('[data-state="done"]').waitFor()
    return turn
  }

  it('shows a silent turn as a quiet marker, live and from the history', async () => {
    await openChat('silence')
    const turn = await send(silenceTrigger)
    expect(await turn.locator('[data-silent]').textContent()).toBe('…（沉默）')
    expect(await turn.locator('.sentence').count()).toBe(0)
    expect(await turn.textContent()).not.toContain('[silence]')

    await page.reload()
    const restored = page.locator('.turn-restored').last()
    await restored.locator('[data-silent]').waitFor()
    expect(await restored.locator('.sentence').count()).toBe(0)
    expect(await page.locator('[data-turns]').textContent()).not.toContain('[silence]')
  })

  it('shows the thought folded above the reply, never in its sentences, live and from the history', async () => {
    await openChat('thought')
    const turn = await send(thoughtTrigger)
    const thought = turn.locator('[data-thought]')
    expect(await thought.locator('p').textContent()).toBe(thoughtText)
    expect(await thought.getAttribute('open')).toBeNull()
    expect((await turn.locator('.sentence').allTextContents()).join('')).toContain(thoughtReplyText)
    expect((await turn.locator('.sentences').textContent()) ?? '').not.toContain(thoughtText)
    expect(await page.locator('[data-subtitles]').textContent()).toBe(thoughtReplyText)

    await page.reload()
    const restored = page.locator('.turn-restored').last()
    await restored.locator('[data-thought]').waitFor()
    expect(await restored.locator('[data-thought] p').textContent()).toBe(thoughtText)
    expect((await restored.locator('.sentences').textContent()) ?? '').not.toContain(thoughtText)
  })

  it("posts the owner's say and event, and tells an older server's 404 in words without breaking the page", async () => {
    await openChat('owner')
    const posted: Request[] = []
    await page.route('**/api/sessions/*/say', async (route) => {
      posted.push(route.request())
      await route.fulfill({ status: 202, contentType: 'application/json', body: '{"turn":"say-1"}' })
    })
    await page.route('**/api/sessions/*/events', async (route) => {
      posted.push(route.request())
      await route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: '{"error":{"code":"not_found","message":"Not Found"}}',
      })
    })
    await page.click('[data-owner-voice] summary')
    await page.fill('input[name="say-text"]', '大家晚上好！')
    await page.fill('input[name="say-emotion"]', '开心')
    await page.click('[data-action="say"]')
    const outcome = page.locator('[data-owner-outcome]')
    await outcome.waitFor()
    expect(await outcome.getAttribute('data-owner-outcome')).toBe('ok')
    expect(await outcome.textContent()).toContain('say-1')
    expect(posted[0]?.method()).toBe('POST')
    expect(new URL(posted[0]?.url() ?? '').pathname).toBe('/api/sessions/owner/say')
    expect(posted[0]?.postDataJSON()).toEqual({ text: '大家晚上好！', emotion: '开心' })

    await page.fill('input[name="event-text"]', '门铃响了')
    await page.check('input[name="event-respond"]')
    await page.click('[data-action="send-event"]')
    await page.locator('[data-owner-outcome="failed"]').waitFor()
    expect(posted[1]?.postDataJSON()).toEqual({ text: '门铃响了', respond: true })
    expect(await page.locator('[data-owner-outcome]').textContent()).toBe(
      '此服务器还不支持 /api/sessions/owner/events（404）：请升级 charpipe。',
    )
    // The page goes on: the chat still answers.
    const turn = await send('你好')
    expect(await turn.locator('.sentence').count()).toBeGreaterThan(0)
    // A picture of the layout to look at, when asked for (CHARPIPE_SCREENSHOT=<file.png>).
    const screenshotPath = process.env.CHARPIPE_SCREENSHOT
    if (screenshotPath) await page.screenshot({ path: screenshotPath, fullPage: true })
  })

  it("shows the owner's say as the character's reply and an event as a note, live and from the history", async () => {
    await openChat('owner-real')
    await page.click('[data-owner-voice] summary')
    await page.fill('input[name="say-text"]', '欢迎来到直播间！')
    await page.click('[data-action="say"]')
    const said = page.locator('.turn:has([data-say])')
    await said.locator('[data-state="done"]').waitFor()
    expect((await said.locator('.sentence').allTextContents()).join('')).toContain('欢迎来到直播间！')
    expect(await said.locator('.user-line').count()).toBe(0)
    expect(await page.locator('[data-owner-outcome]').getAttribute('data-owner-outcome')).toBe('ok')

    await page.fill('input[name="event-text"]', '门铃响了')
    await page.click('[data-action="send-event"]')
    await page.locator('[data-owner-outcome]').filter({ hasText: '事件已记录' }).waitFor()
    expect(await page.locator('.turn-note [data-event]').last().textContent()).toBe('📣 事件：门铃响了')

    await page.reload()
    await page.locator('.turn-restored [data-event]').waitFor()
    expect(await page.locator('.turn-restored [data-event]').last().textContent()).toBe('📣 事件：门铃响了')
    const restoredText = await page.locator('[data-turns]').textContent()
    expect(restoredText).toContain('欢迎来到直播间！')
    expect(restoredText).not.toContain('[事件]')
  })
})
