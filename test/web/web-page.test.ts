/**
 * The web page in a real browser (Debian's chromium through playwright-core) against the server with
 * the mock model: chat with subtitles, sentences, emotions and the done state; interrupting a long
 * reply; persona and processor changes seen in the context preview; an invalid value refused next to
 * its field with the config file unchanged; memory add, search and delete; phone and desktop layouts.
 */
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BrowserTest,
  findBrowserSkipReason,
  longReplyText,
  longReplyTrigger,
  openTestPage,
  type ServerUnderTest,
  startBrowserTest,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

describe.skipIf(skipReason !== undefined)('web page in a browser', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let page: Page

  beforeAll(async () => {
    browserTest = await startBrowserTest()
    server = browserTest.server
    page = await openTestPage(browserTest.browser)
  }, 60_000)

  afterAll(() => browserTest?.stop())

  const openTab = async (tab: string) => {
    await page.goto(`${server.url}/#${tab}`)
    await page.locator(`[data-panel="${tab}"]`).waitFor()
  }

  const runPreview = async (text: string, emotion = '') => {
    await openTab('preview')
    await page.fill('input[name="preview-text"]', text)
    await page.selectOption('select[name="preview-emotion"]', emotion)
    await page.click('[data-action="preview"]')
    await page.locator('.preview-message').first().waitFor()
    return page.locator('.preview-messages').textContent()
  }

  it('shows emotion badges in the page language while frames keep the configured labels', async () => {
    const english = await openTestPage(browserTest.browser, { locale: 'en-US' })
    try {
      await english.goto(`${server.url}/#chat`)
      await english.locator('.dot-open').waitFor()
      await english.fill('input[name="chat-text"]', 'Hello')
      await english.click('[data-action="send"]')
      const turn = english.locator('.turn').last()
      await turn.locator('[data-state="done"]').waitFor()
      const sentence = turn.locator('.sentence').first()
      expect(await sentence.getAttribute('data-emotion')).toBe('开心')
      expect((await sentence.locator('.badge.emotion').textContent())?.trim()).toBe('😄 happy')
      expect(await english.locator('.avatar-label').textContent()).toBe('happy')
    } finally {
      await english.close()
    }
  })

  it('sends a message and shows subtitles, sentences with emotions and the done state', async () => {
    await openTab('chat')
    await page.locator('.dot-open').waitFor()
    await page.fill('input[name="chat-text"]', '你好')
    await page.click('[data-action="send"]')
    const turn = page.locator('.turn').last()
    await turn.locator('[data-state="done"]').waitFor()
    const sentences = turn.locator('.sentence')
    expect(await sentences.count()).toBeGreaterThan(0)
    // The mock model answers {"emotion":"开心","text":"你好呀！我是小测。今天过得怎么样？"}.
    expect(await sentences.first().getAttribute('data-emotion')).toBe('开心')
    expect(await sentences.allTextContents()).toHaveLength(3)
    expect(await turn.locator('.turn-state').textContent()).toContain('完成')
    // The turn report: time to the first sentence and the tokens the model reported.
    expect(await turn.locator('.turn-report').textContent()).toMatch(
      /首句 \d[\d,]* ms · 共 \d[\d,]* ms · \d+ \+ \d+ tokens/,
    )
    expect(await page.locator('[data-subtitles]').textContent()).toBe('你好呀！我是小测。今天过得怎么样？')
    expect(await page.locator('.avatar').getAttribute('data-emotion')).toBe('开心')
  })

  it('interrupts a long reply', async () => {
    await openTab('chat')
    await page.locator('.dot-open').waitFor()
    await page.fill('input[name="chat-text"]', `${longReplyTrigger}吧`)
    await page.click('[data-action="send"]')
    const turn = page.locator('.turn').last()
    await turn.locator('[data-state="streaming"]').waitFor()
    await page.waitForFunction(
      () => (document.querySelector('[data-subtitles]')?.textContent ?? '').length > 4,
    )
    await page.click('[data-action="interrupt"]')
    await turn.locator('[data-state="done"]').waitFor()
    expect(await turn.locator('.turn-state').textContent()).toContain('已打断')
    expect((await page.locator('[data-subtitles]').textContent())?.length).toBeLessThan(longReplyText.length)
    // An interrupted turn is stored after its llm_done: wait for the write, not for the page.
    const readLastReply = async () => {
      const stored = await (await fetch(`${server.url}/api/sessions/default/messages`)).json()
      return stored.messages.filter((message: { role: string }) => message.role === 'assistant').at(-1)
    }
    await expect.poll(readLastReply, { timeout: 10_000 }).toMatchObject({ interrupted: true })
  })

  it('changes the persona and shows it in the preview', async () => {
    const marker = `会说暗号${Date.now()}的角色`
    await openTab('character')
    await page.fill('textarea[name="character.persona"]', marker)
    await page.click('[data-panel="character"] [data-action="save"]')
    await page.locator('.toast-success').first().waitFor()
    expect(await runPreview('你是谁？')).toContain(marker)
  })

  it('toggles a processor and sees the effect in the preview', async () => {
    expect(await runPreview('今天好开心', 'happy')).toContain('[用户语气：愉快]')
    await openTab('pipeline')
    const toggle = page.locator('input[name="pipeline.processors.user-emotion.enabled"]')
    expect(await toggle.isChecked()).toBe(true)
    await toggle.uncheck()
    await page.click('[data-panel="pipeline"] [data-action="save"]')
    await page.locator('.toast-success').first().waitFor()
    expect(await runPreview('今天好开心', 'happy')).not.toContain('用户语气')
  })

  it('lists the tools and MCP servers under the pipeline (none configured here)', async () => {
    await openTab('pipeline')
    const section = page.locator('[data-section="tools"]')
    await section.getByText('没有可用的工具。').waitFor()
    expect(await section.locator('[role="alert"]').count()).toBe(0)
  })

  it('shows an invalid value next to its field and saves nothing', async () => {
    const before = await readFile(server.configPath, 'utf8')
    await openTab('provider')
    await page.fill('input[name="llm.temperature"]', '5')
    await page.click('[data-panel="provider"] [data-action="save"]')
    const error = page.locator('[data-error-for="llm.temperature"]')
    await error.waitFor()
    expect(await error.textContent()).toMatch(/2/)
    expect(await page.locator('[data-field="llm.temperature"]').getAttribute('class')).toContain(
      'field-invalid',
    )
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
    const config = await (await fetch(`${server.url}/api/config`)).json()
    expect(config.llm.temperature).toBe(0.7)
  })

  it('adds, searches, edits, shows the history of and deletes a memory', async () => {
    await openTab('memory')
    const text = `用户最喜欢草莓蛋糕${Date.now()}`
    await page.fill('input[name="memory-new-text"]', text)
    await page.click('[data-action="memory-add"]')
    await page.locator('.memory-item', { hasText: text }).waitFor()
    await page.fill('input[name="memory-query"]', '草莓蛋糕')
    await page.click('[data-action="memory-search"]')
    await page.locator('.memory-item', { hasText: text }).waitFor()
    const id = await page.locator('.memory-item', { hasText: text }).getAttribute('data-memory-id')
    const hit = page.locator(`.memory-item[data-memory-id="${id}"]`)
    await hit.locator('[data-action="memory-edit"]').click()
    await hit.locator('textarea[name="memory-edit"]').fill(`${text}和抹茶`)
    await hit.locator('[data-action="memory-save"]').click()
    await hit.locator('.memory-text', { hasText: `${text}和抹茶` }).waitFor()
    await hit.locator('[data-action="memory-history"]').click()
    const history = hit.locator('.memory-history')
    await history.locator('ins', { hasText: `${text}和抹茶` }).waitFor()
    expect(await history.textContent()).toContain('update')
    await hit.locator('[data-action="memory-delete"]').click()
    await hit.locator('[data-action="memory-delete-confirm"]').click()
    await hit.waitFor({ state: 'detached' })
    await page.click('[data-action="memory-search"]')
    await page.locator('.hint', { hasText: '搜索结果' }).waitFor()
    expect(await page.locator('.memory-item', { hasText: text }).count()).toBe(0)
    await page.fill('input[name="kb-name"]', '店铺说明')
    await page.fill(
      'textarea[name="kb-text"]',
      '# 营业时间\n\n每天九点到晚上九点营业。\n\n# 地址\n\n人民路 1 号。',
    )
    await page.click('[data-action="kb-add"]')
    const document = page.locator('.kb-list li', { hasText: '店铺说明' })
    await document.waitFor()
    await document.locator('[data-action="kb-delete"]').click()
    await document.locator('[data-action="kb-delete-confirm"]').click()
    await document.waitFor({ state: 'detached' })
  })

  for (const viewport of [
    { name: 'phone', width: 390, height: 844 },
    { name: 'desktop', width: 1280, height: 800 },
  ]) {
    it(`lays out the chat and settings at ${viewport.name} width`, async () => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height })
      await openTab('chat')
      const selectors = [
        '.tabs',
        '.avatar',
        '[data-subtitles]',
        'input[name="chat-text"]',
        '[data-action="send"]',
        '[data-action="interrupt"]',
      ]
      for (const selector of selectors) {
        const box = await page.locator(selector).first().boundingBox()
        expect(box, selector).not.toBeNull()
        expect(box!.x, selector).toBeGreaterThanOrEqual(0)
        expect(box!.y, selector).toBeGreaterThanOrEqual(0)
        expect(box!.x + box!.width, selector).toBeLessThanOrEqual(viewport.width + 1)
        expect(box!.y + box!.height, selector).toBeLessThanOrEqual(viewport.height + 1)
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await page.screenshot({ path: path.join(tmpdir(), `charpipe-web-chat-${viewport.name}.png`) })
      await openTab('character')
      const save = await page.locator('[data-panel="character"] [data-action="save"]').boundingBox()
      expect(save!.x + save!.width).toBeLessThanOrEqual(viewport.width + 1)
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0)
      await page.screenshot({
        path: path.join(tmpdir(), `charpipe-web-character-${viewport.name}.png`),
        fullPage: true,
      })
      await openTab('pipeline')
      await page.locator('[data-processor="regex-processor"]').waitFor()
      const toggle = await page.locator('[data-processor="regex-processor"] .toggle').boundingBox()
      expect(toggle!.x + toggle!.width).toBeLessThanOrEqual(viewport.width + 1)
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0)
      await page.screenshot({
        path: path.join(tmpdir(), `charpipe-web-pipeline-${viewport.name}.png`),
        fullPage: true,
      })
    })
  }
})

describe.skipIf(skipReason !== undefined)('web page with a server token', () => {
  const token = 'web-test-token-7f3a'
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let browser: Browser

  beforeAll(async () => {
    browserTest = await startBrowserTest({ token })
    ;({ server, browser } = browserTest)
  }, 60_000)

  afterAll(() => browserTest?.stop())

  it('asks for the token after a 401, then loads the config and connects the WebSocket', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' })
    await page.goto(`${server.url}/#chat`)
    await page.locator('[data-login]').waitFor()
    expect(await page.locator('.dot-open').count()).toBe(0)
    await page.fill('input[name="token"]', token)
    await page.click('[data-login] button[type="submit"]')
    await page.locator('[data-login]').waitFor({ state: 'detached' })
    await page.locator('.dot-open').waitFor()
    expect(await page.locator('.top h1 small').textContent()).toBe('小测')
    expect(await page.evaluate(() => localStorage.getItem('charpipe.token'))).toBe(token)
    await page.fill('input[name="chat-text"]', '你好')
    await page.click('[data-action="send"]')
    await page.locator('.turn [data-state="done"]').waitFor()
  })
})
