/**
 * The first five minutes of an English developer, in a real browser: `charpipe serve` with a config
 * that names no character, on a machine whose locale is English (`LANG=en_US.UTF-8`), and an
 * English browser. The page speaks English, the default character is the English one and its
 * replies carry English emotion labels; loading the page asks for nothing that is not there (no
 * 404); a SillyTavern card imports, exports as a PNG that is one well-formed file, and that PNG
 * imports again.
 */
import { readFile } from 'node:fs/promises'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPngChunks } from '../../src/characters/cards/read-png-chunks.js'
import { makeCardV2 } from '../../src/testing/index.js'
import {
  type BrowserTest,
  englishGreeting,
  findBrowserSkipReason,
  openTestPage,
  type ServerUnderTest,
  startBrowserTest,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

describe.skipIf(skipReason !== undefined)('the first five minutes, in English', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let page: Page
  const missing: string[] = []

  beforeAll(async () => {
    browserTest = await startBrowserTest({
      withCharacter: false,
      environment: { LANG: 'en_US.UTF-8', LC_ALL: undefined, LC_MESSAGES: undefined },
    })
    server = browserTest.server
    page = await openTestPage(browserTest.browser, { locale: 'en-US', acceptDownloads: true })
    page.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url())
    })
  }, 60_000)

  afterAll(() => browserTest?.stop())

  it('opens on the English default character, answers with English emotion labels, asks for nothing missing', async () => {
    await page.goto(`${server.url}/#chat`)
    await page.locator('.dot-open').waitFor()
    expect(await page.locator('[data-character-switch]').inputValue()).toBe('Assistant')
    expect(await page.locator('[data-action="send"]').textContent()).toBe('Send')
    await page.fill('input[name="chat-text"]', englishGreeting)
    await page.click('[data-action="send"]')
    const turn = page.locator('.turn').last()
    await turn.locator('[data-state="done"]').waitFor()
    expect(await turn.getAttribute('data-outcome')).not.toBe('failed')
    const emotions = await turn
      .locator('.sentence')
      .evaluateAll((sentences) => sentences.map((sentence) => sentence.getAttribute('data-emotion')))
    expect(emotions.length).toBeGreaterThan(0)
    for (const emotion of emotions) expect(emotion).toBe('happy')
    expect(await turn.textContent()).toContain("That's great!")
    expect(missing).toEqual([])
  })

  it('imports a card, exports it as a PNG of well-formed chunks, and imports that PNG again', async () => {
    await page.goto(`${server.url}/#character`)
    await page.locator('[data-panel="character"]').waitFor()
    await page.setInputFiles('[data-character-import]', {
      name: 'seraphina.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(makeCardV2())),
    })
    await page.locator('[data-panel="character"][data-character="seraphina"]').waitFor()
    const imported = await (await fetch(`${server.url}/api/characters/seraphina`)).json()
    expect(imported.character).toMatchObject({ name: 'Seraphina', default_emotion: 'calm' })

    const download = page.waitForEvent('download')
    await page.click('[data-action="character-export-png"]')
    const file = await download
    expect(file.suggestedFilename()).toBe('seraphina.png')
    const png = new Uint8Array(await readFile((await file.path())!))
    const chunks = readPngChunks(png)
    expect(chunks[0]!.type).toBe('IHDR')
    expect(chunks.at(-1)!.type).toBe('IEND')
    expect(chunks.reduce((end, chunk) => end + chunk.bytes.length, 8)).toBe(png.length)

    await page.setInputFiles('[data-character-import]', {
      name: 'seraphina.png',
      mimeType: 'image/png',
      buffer: Buffer.from(png),
    })
    await page.waitForFunction(() => document.querySelector('.toast-success') !== null)
    const again = await (await fetch(`${server.url}/api/characters/seraphina`)).json()
    expect(again.character).toMatchObject({
      name: 'Seraphina',
      greeting: imported.character.greeting,
      emotions: imported.character.emotions,
    })
    expect(missing).toEqual([])
  })
})
