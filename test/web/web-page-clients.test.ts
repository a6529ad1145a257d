/**
 * The page's client list in a real browser against `charpipe serve`: each named client
 * (`server.clients`) with its profile and its last use, and never its token.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BrowserTest,
  findBrowserSkipReason,
  openTestPage,
  type ServerUnderTest,
  startBrowserTest,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

const airiToken = 'airi-token-0123456789abcdef'
const tavernToken = 'tavern-token-0123456789abcdef'

describe.skipIf(skipReason !== undefined)('the page lists the front-end clients', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let page: Page

  beforeAll(async () => {
    browserTest = await startBrowserTest({
      extraYaml: [
        'server:',
        '  clients:',
        `    - { name: airi, token: ${airiToken}, profile: { session: client, persona: server, history: server, emotion: act } }`,
        `    - { name: tavern, token: ${tavernToken}, profile: { emotion: none } }`,
        '',
      ].join('\n'),
    })
    server = browserTest.server
    page = await openTestPage(browserTest.browser)
  }, 60_000)

  afterAll(async () => {
    await browserTest?.stop()
  })

  it("shows each client's profile and last use, never a token", async () => {
    const models = await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer ${airiToken}` },
    })
    expect(models.status).toBe(200)
    await page.goto(`${server.url}/#pipeline`)
    const airi = page.locator('[data-section="clients"] [data-client="airi"]')
    await airi.waitFor()
    const airiText = await airi.innerText()
    expect(airiText).toContain('act')
    expect(airiText).toContain('人设 server')
    expect(airiText).toContain('历史 server')
    expect(airiText).toContain('最近使用')
    const tavern = page.locator('[data-section="clients"] [data-client="tavern"]')
    expect(await tavern.innerText()).toContain('启动以来未使用')
    const content = await page.content()
    expect(content).not.toContain(airiToken)
    expect(content).not.toContain(tavernToken)
  })
})
