/**
 * Characters on the web page, in a real browser against `charpipe serve` and the mock model: create
 * one, give it a greeting and switch to it (its session opens with the greeting, and the chat speaks
 * to it), import a card by picking a PNG (its picture becomes the avatar), export a card, duplicate
 * and delete.
 */
import { readFile } from 'node:fs/promises'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { encodeCardChunkText, makeCardPng, makeCardV3 } from '../../src/testing/index.js'
import {
  type BrowserTest,
  findBrowserSkipReason,
  openTestPage,
  type ServerUnderTest,
  startBrowserTest,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

describe.skipIf(skipReason !== undefined)('characters on the web page', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let page: Page

  beforeAll(async () => {
    browserTest = await startBrowserTest()
    server = browserTest.server
    page = await openTestPage(browserTest.browser, { acceptDownloads: true })
  }, 60_000)

  afterAll(() => browserTest?.stop())

  const switchOptions = () =>
    page
      .locator('[data-character-switch] option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))

  it('creates a character with a greeting; its new session opens with the greeting and the chat speaks to it', async () => {
    await page.goto(`${server.url}/#character`)
    await page.locator('[data-panel="character"]').waitFor()
    expect(await switchOptions()).toEqual(['小测'])
    await page.fill('[data-new-character]', 'alice')
    await page.click('[data-action="character-create"]')
    await page.locator('[data-panel="character"][data-character="alice"]').waitFor()
    expect(await switchOptions()).toEqual(['小测', 'alice'])
    expect(await page.locator('[data-character-switch]').inputValue()).toBe('alice')

    await page.fill('[name="characters.alice.persona"]', '爱丽丝是一位画家。')
    await page.fill('[name="characters.alice.greeting"]', '你好，{{user}}！我是{{char}}。')
    await page.click('[data-action="save"]')
    await page.waitForFunction(() => document.querySelector('.toast')?.textContent?.includes('已保存'))
    const config = await readFile(server.configPath, 'utf8')
    expect(config).toContain('alice:')
    expect(config).toContain('爱丽丝是一位画家。')

    await page.goto(`${server.url}/#chat`)
    await page.locator('.dot-open').waitFor()
    // The page opened the session with alice: her greeting is its first message.
    await page.locator('.turn', { hasText: '你好，用户！我是alice。' }).first().waitFor()
    await page.fill('input[name="chat-text"]', '你好，爱丽丝')
    await page.click('[data-action="send"]')
    await page.locator('.turn').last().locator('[data-state="done"]').waitFor()
    const stored = await (await fetch(`${server.url}/api/sessions/default/messages?character=alice`)).json()
    expect(
      stored.messages.map((message: { role: string; content: string }) => message.content).slice(0, 2),
    ).toEqual(['你好，用户！我是alice。', '你好，爱丽丝'])
    const ofDefault = await (await fetch(`${server.url}/api/sessions/default/messages`)).json()
    expect(
      ofDefault.messages.some((message: { content: string }) => message.content === '你好，爱丽丝'),
    ).toBe(false)

    // The context preview is the chosen character's.
    await page.goto(`${server.url}/#preview`)
    await page.locator('[data-panel="preview"]').waitFor()
    await page.fill('input[name="preview-text"]', '你在画什么？')
    await page.click('[data-action="preview"]')
    await page.locator('.preview-message').first().waitFor()
    expect(await page.locator('.preview-messages').textContent()).toContain('爱丽丝是一位画家。')
  })

  it('edits alternate greetings with commas one per row, keeps them through a save and a reload', async () => {
    const greetings = [
      "Oh, you're back! Welcome, friend.",
      'Well, well, well. Look who it is.',
      'Hush, the owls are listening,\nand so, my dear, am I.',
    ]
    await page.goto(`${server.url}/#character`)
    await page.locator('[data-panel="character"]').waitFor()
    await page.selectOption('[data-character-switch]', 'alice')
    await page.locator('[data-panel="character"][data-character="alice"]').waitFor()
    // Greeting and scenario are multi-line fields.
    expect(await page.locator('[name="characters.alice.greeting"]').evaluate((node) => node.tagName)).toBe(
      'TEXTAREA',
    )
    expect(await page.locator('[name="characters.alice.scenario"]').evaluate((node) => node.tagName)).toBe(
      'TEXTAREA',
    )
    const list = page.locator('[data-text-list="characters.alice.alternate_greetings"]')
    for (const [index, greeting] of greetings.entries()) {
      await list.locator('[data-add-item]').click()
      await page.fill(`[name="characters.alice.alternate_greetings.${index}"]`, greeting)
    }
    await page.click('[data-action="save"]')
    await page.waitForFunction(() => document.querySelector('.toast')?.textContent?.includes('已保存'))
    const saved = await (await fetch(`${server.url}/api/characters/alice`)).json()
    expect(saved.character.alternate_greetings).toEqual(greetings)

    await page.reload()
    await page.locator('[data-panel="character"][data-character="alice"]').waitFor()
    const shown = await page
      .locator('[data-text-list="characters.alice.alternate_greetings"] textarea')
      .evaluateAll((nodes) => nodes.map((node) => (node as HTMLTextAreaElement).value))
    expect(shown).toEqual(greetings)
    // Removing one row removes that greeting only.
    await page
      .locator('[data-text-list="characters.alice.alternate_greetings"] [data-row="1"] button')
      .click()
    await page.click('[data-action="save"]')
    await vi.waitFor(async () => {
      const after = await (await fetch(`${server.url}/api/characters/alice`)).json()
      expect(after.character.alternate_greetings).toEqual([greetings[0], greetings[2]])
    })
  })

  it('imports a PNG card (its picture the avatar), exports it, duplicates and deletes a character', async () => {
    await page.goto(`${server.url}/#character`)
    await page.locator('[data-panel="character"]').waitFor()
    const png = makeCardPng({ ccv3: encodeCardChunkText(makeCardV3({ name: 'Luna' })) })
    await page.setInputFiles('[data-character-import]', {
      name: 'luna.png',
      mimeType: 'image/png',
      buffer: Buffer.from(png),
    })
    await page.locator('[data-panel="character"][data-character="luna"]').waitFor()
    // The picture stays a file on the server, fetched with the page's token: switcher and face box.
    await page.locator('header img[data-character-avatar]').waitFor()
    expect(await page.locator('header [data-character-avatar]').getAttribute('src')).toMatch(/^blob:/)
    expect(await page.inputValue('[name="characters.luna.name"]')).toBe('Luna')

    const download = page.waitForEvent('download')
    await page.click('[data-action="character-export-json"]')
    const file = await download
    expect(file.suggestedFilename()).toBe('luna.json')
    const card = JSON.parse(await readFile((await file.path())!, 'utf8'))
    expect(card).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Luna' } })

    await page.click('[data-action="character-duplicate"]')
    await page.locator('[data-panel="character"][data-character="luna-copy"]').waitFor()
    expect(await page.inputValue('[name="characters.luna-copy.name"]')).toBe('Luna')
    await page.click('[data-action="character-delete"]')
    await page.click('[data-action="character-delete-confirm"]')
    await page.waitForFunction(
      () =>
        !Array.from(document.querySelectorAll('[data-character-switch] option')).some(
          (option) => (option as HTMLOptionElement).value === 'luna-copy',
        ),
    )
    expect(await switchOptions()).toEqual(['小测', 'alice', 'luna'])
    expect(await readFile(server.configPath, 'utf8')).not.toContain('luna-copy')

    // A bad card is refused with the server's reason, and nothing is added.
    await page.setInputFiles('[data-character-import]', {
      name: 'bad.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"spec": 1'),
    })
    await page.locator('[data-character-error]').waitFor()
    expect(await page.locator('[data-character-error]').textContent()).toContain('not valid JSON')
    expect(await switchOptions()).toEqual(['小测', 'alice', 'luna'])
  })
})
