/**
 * What a newcomer meets on the page in the first hour, in a real browser at desktop (1280×800) and
 * phone (390×844) sizes: failed turns that say what to check and never "done"; interruptions that
 * are not errors; the conversation back after a reload; confirmations before deleting; every tab on a
 * phone; one language at a time; the provider and model that answer; a refused token; a config file
 * made invalid by hand. Screenshots of each state go to a temporary folder (printed) to look at.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BrowserTest,
  findBrowserSkipReason,
  keyRefusedTrigger,
  longReplyTrigger,
  modelMissingTrigger,
  type ServerUnderTest,
  startBrowserTest,
  watchPage,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const
type ViewportName = keyof typeof viewports

let shotDir = ''
async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: path.join(shotDir, `${name}.png`), fullPage })
}

async function openPage(
  browser: Browser,
  options: { viewport: ViewportName; locale: string; token?: string },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: viewports[options.viewport], locale: options.locale })
  if (options.token !== undefined) {
    const token = options.token
    await context.addInitScript((value) => localStorage.setItem('charpipe.token', value), token)
  }
  const page = watchPage(await context.newPage())
  return { context, page }
}

describe.skipIf(skipReason !== undefined)('the first hour on the page', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let browser: Browser

  beforeAll(async () => {
    shotDir = await mkdtemp(path.join(tmpdir(), 'charpipe-web-shots-'))
    console.log(`screenshots in ${shotDir}`)
    browserTest = await startBrowserTest()
    ;({ server, browser } = browserTest)
  }, 60_000)

  afterAll(() => browserTest?.stop())

  const openChat = async (page: Page, session: string) => {
    await page.goto(`${server.url}/#chat`)
    await page.evaluate((name) => localStorage.setItem('charpipe.session', name), session)
    await page.reload()
    await page.locator('.dot-open').waitFor()
  }

  const send = async (page: Page, text: string) => {
    await page.fill('input[name="chat-text"]', text)
    await page.click('[data-action="send"]')
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`says why a turn failed and what to check, never "done" (${viewport})`, async () => {
      const { context, page } = await openPage(browser, { viewport, locale: 'en-US' })
      await openChat(page, `failing-${viewport}`)
      await send(page, keyRefusedTrigger)
      const refused = page.locator('.turn').last()
      await refused.locator('[data-state="done"]').waitFor()
      expect(await refused.getAttribute('data-outcome')).toBe('failed')
      expect(await refused.locator('.error-summary').textContent()).toBe(
        'The provider refused the API key (HTTP 401).',
      )
      expect(await refused.locator('.error-check').textContent()).toContain('llm.api_key')
      expect(await refused.locator('.turn-state').textContent()).toBe('⚠️ Not completed')
      expect(await refused.textContent()).not.toMatch(/Done|完成/)
      // The upstream's raw answer is there for whoever wants it, folded away.
      expect(await refused.locator('.error-detail').isVisible()).toBe(true)
      expect(await refused.locator('.error-detail code').isVisible()).toBe(false)

      await send(page, modelMissingTrigger)
      const missing = page.locator('.turn').last()
      await missing.locator('[data-state="done"]').waitFor()
      expect(await missing.locator('.error-summary').textContent()).toBe(
        'The provider does not know this model or address (HTTP 404).',
      )
      expect(await missing.locator('.error-check').textContent()).toContain('llm.model')
      await shoot(page, `failed-turns-${viewport}`)
      // After a reload the stored record says the same: not completed, never done.
      await page.reload()
      await page.locator('.turn-restored').first().waitFor()
      expect(
        await page
          .locator('.turn-restored')
          .evaluateAll((turns) => turns.map((turn) => turn.getAttribute('data-outcome'))),
      ).toEqual(['failed', 'failed'])
      expect(await page.locator('.turns').textContent()).not.toMatch(/Done|完成/)
      await context.close()
    })
  }

  it('says the provider cannot be reached when its address answers nothing, and follows saved changes', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'zh-CN' })
    const before = await (await fetch(`${server.url}/api/config`)).json()
    try {
      await page.goto(`${server.url}/#provider`)
      // Port 9 (discard) on the loopback: nothing listens there.
      await page.fill('input[name="llm.base_url"]', 'http://127.0.0.1:9/v1')
      await page.fill('input[name="llm.model"]', 'gone-model')
      await page.fill('input[name="llm.max_retries"]', '0')
      await page.click('[data-panel="provider"] [data-action="save"]')
      await page.locator('.toast-success').first().waitFor()
      await page.click('.tab[data-tab="chat"]')
      await page.locator('.dot-open').waitFor()
      // The chat names what now answers, as saved.
      expect(await page.locator('[data-answering] [data-model]').textContent()).toBe('gone-model')
      await page.evaluate(() => localStorage.setItem('charpipe.session', 'unreachable'))
      await page.reload()
      await page.locator('.dot-open').waitFor()
      await send(page, '你好')
      const turn = page.locator('.turn').last()
      await turn.locator('[data-state="done"]').waitFor()
      expect(await turn.getAttribute('data-outcome')).toBe('failed')
      expect(await turn.locator('.error-summary').textContent()).toBe('连接不到模型服务商。')
      expect(await turn.locator('.error-check').textContent()).toContain('llm.base_url')
      await shoot(page, 'unreachable-zh-desktop')
    } finally {
      const restored = await fetch(`${server.url}/api/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          llm: {
            base_url: before.llm.base_url,
            model: before.llm.model,
            max_retries: before.llm.max_retries,
          },
        }),
      })
      expect(restored.status).toBe(200)
      await context.close()
    }
  })

  it('shows a barge-in by a new input as an interruption, not as an error', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    await openChat(page, 'barge-in')
    await send(page, `${longReplyTrigger}吧`)
    const first = page.locator('.turn').first()
    await first.locator('[data-state="streaming"]').waitFor()
    await page.waitForFunction(
      () => (document.querySelector('[data-subtitles]')?.textContent ?? '').length > 4,
    )
    await send(page, '你好')
    await first.locator('[data-state="done"]').waitFor()
    await page.locator('.turn').nth(1).locator('[data-state="done"]').waitFor()
    expect(await first.getAttribute('data-outcome')).toBe('interrupted')
    expect(await first.locator('.turn-state').textContent()).toBe('⏹ Interrupted by a new input')
    expect(await first.locator('.turn-error').count()).toBe(0)
    expect(await page.locator('.error-box').count()).toBe(0)
    await shoot(page, 'barge-in-desktop')
    await context.close()
  })

  it('restores the conversation and its stored count on reload, and clears the session after asking', async () => {
    const { context, page } = await openPage(browser, { viewport: 'phone', locale: 'zh-CN' })
    await openChat(page, 'restore')
    await send(page, '你好')
    await page.locator('.turn [data-state="done"]').waitFor()
    await page.reload()
    const restored = page.locator('.turn-restored')
    await restored.first().waitFor()
    // Right at load, without pressing "reload": the question, the reply and the count of stored messages.
    expect(await page.locator('[data-stored-count]').getAttribute('data-stored-count')).toBe('2')
    expect(await restored.first().locator('.user-line').textContent()).toContain('你好')
    expect(await restored.first().locator('.sentence').textContent()).toContain('你好呀！我是小测。')
    await shoot(page, 'restored-phone')

    await page.click('[data-action="session-clear"]')
    const confirm = page.locator('[data-confirm="session-clear"]')
    expect(await confirm.textContent()).toContain('清空会话 restore 的全部已保存消息？')
    await shoot(page, 'clear-confirm-phone')
    await page.click('[data-action="session-clear-cancel"]')
    expect(await page.locator('.turn').count()).toBe(1)
    const kept = await (await fetch(`${server.url}/api/sessions/restore/messages`)).json()
    expect(kept.messages).toHaveLength(2)

    await page.click('[data-action="session-clear"]')
    await page.click('[data-action="session-clear-confirm"]')
    await page.locator('[data-stored-count="0"]').waitFor()
    expect(await page.locator('.turn').count()).toBe(0)
    const cleared = await (await fetch(`${server.url}/api/sessions/restore/messages`)).json()
    expect(cleared.messages).toEqual([])
    await context.close()
  })

  it('asks before deleting a memory or a knowledge document', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    await page.goto(`${server.url}/#memory`)
    await page.locator('[data-panel="memory"]').waitFor()
    const text = `likes green tea ${Date.now()}`
    await page.fill('input[name="memory-new-text"]', text)
    await page.click('[data-action="memory-add"]')
    const item = page.locator('.memory-item', { hasText: text })
    await item.waitFor()
    await item.locator('[data-action="memory-delete"]').click()
    expect(await item.locator('[data-confirm="memory-delete"]').textContent()).toContain(
      'Delete this memory?',
    )
    await shoot(page, 'memory-delete-confirm-desktop')
    await item.locator('[data-action="memory-delete-cancel"]').click()
    expect(await item.count()).toBe(1)
    await item.locator('[data-action="memory-delete"]').click()
    await item.locator('[data-action="memory-delete-confirm"]').click()
    await item.waitFor({ state: 'detached' })

    await page.fill('input[name="kb-name"]', 'Opening hours')
    await page.fill('textarea[name="kb-text"]', 'Open every day from nine to nine.')
    await page.click('[data-action="kb-add"]')
    const document = page.locator('.kb-list li', { hasText: 'Opening hours' })
    await document.waitFor()
    await document.locator('[data-action="kb-delete"]').click()
    expect(await document.locator('[data-confirm="kb-delete"]').textContent()).toContain(
      'Delete the document “Opening hours”?',
    )
    await document.locator('[data-action="kb-delete-confirm"]').click()
    await document.waitFor({ state: 'detached' })
    await context.close()
  })

  for (const locale of ['zh-CN', 'en-US']) {
    it(`reaches every tab on a phone with the active one in sight (${locale})`, async () => {
      const { context, page } = await openPage(browser, { viewport: 'phone', locale })
      await page.goto(`${server.url}/#memory`)
      await page.locator('[data-panel="memory"]').waitFor()
      const tabs = page.locator('.tabs .tab')
      expect(await tabs.count()).toBe(7)
      for (const tab of await tabs.all()) {
        const box = await tab.boundingBox()
        expect(box).not.toBeNull()
        expect(box!.x).toBeGreaterThanOrEqual(0)
        expect(box!.x + box!.width).toBeLessThanOrEqual(viewports.phone.width + 1)
      }
      const active = page.locator('.tab.active')
      expect(await active.getAttribute('data-tab')).toBe('memory')
      expect(await active.isVisible()).toBe(true)
      for (const id of ['chat', 'character', 'provider', 'pipeline', 'preview', 'memory', 'audience']) {
        await page.click(`.tab[data-tab="${id}"]`)
        await page.locator(`[data-panel="${id}"]`).waitFor()
      }
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0)
      await shoot(page, `tabs-phone-${locale}`)
      await context.close()
    })
  }

  it('speaks one language at a time: labels, descriptions and validation messages, remembered', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    await page.goto(`${server.url}/#character`)
    const persona = page.locator('[data-field="character.persona"]')
    await persona.waitFor()
    // An English browser gets English, descriptions from the schema.
    expect(await persona.locator('.field-label span').textContent()).toBe('Persona')
    expect(await persona.locator('.field-hint').textContent()).toBe(
      'Who the character is: personality, background, manner of speech.',
    )
    expect(await page.locator('.tab[data-tab="chat"]').textContent()).toBe('Chat')
    await shoot(page, 'character-en-desktop', true)

    await page.click('[data-language="zh"]')
    expect(await persona.locator('.field-label span').textContent()).toBe('人设')
    expect(await persona.locator('.field-hint').textContent()).toBe('角色是谁：性格、背景、说话方式。')
    expect(await page.locator('.tab[data-tab="chat"]').textContent()).toBe('对话')
    expect(await page.evaluate(() => localStorage.getItem('charpipe.language'))).toBe('zh')
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN')
    await page.reload()
    await persona.waitFor()
    expect(await persona.locator('.field-label span').textContent()).toBe('人设')
    // No English left in the labels of the fields shown: each one is in the page's language.
    const labels = await page.locator('.field-label span').allTextContents()
    expect(labels.filter((label) => /^[A-Za-z ]+$/.test(label))).toEqual([])
    await shoot(page, 'character-zh-desktop', true)

    // A validation message from the server keeps its words and gets a lead in the page's language.
    await page.goto(`${server.url}/#provider`)
    await page.fill('input[name="llm.temperature"]', '5')
    await page.click('[data-panel="provider"] [data-action="save"]')
    const fieldError = page.locator('[data-error-for="llm.temperature"]')
    await fieldError.waitFor()
    expect(await fieldError.textContent()).toMatch(/^配置无效：.*2/)
    expect(await page.locator('[data-save-error] li').first().textContent()).toMatch(
      /^配置无效：llm\.temperature：/,
    )
    await shoot(page, 'provider-invalid-zh-desktop')
    await page.click('[data-language="en"]')
    expect(await fieldError.textContent()).toMatch(/^Invalid: .*2/)
    expect(await page.locator('[data-save-error] li').first().textContent()).toMatch(
      /^Invalid config: llm\.temperature: /,
    )
    // The field's value was not lost by switching.
    expect(await page.inputValue('input[name="llm.temperature"]')).toBe('5')
    await context.close()
  })

  it('says when the server runs on the defaults, and where saves will go', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    // A server started without a config file answers so; this one has a file, so the answer is staged.
    const status = { path: '/srv/app/config.yaml', source: 'defaults', file_error: null }
    await page.route('**/api/config/status', (route) => route.fulfill({ json: status }))
    await page.goto(`${server.url}/#chat`)
    const note = page.locator('[data-answering] [data-defaults]')
    await note.waitFor()
    expect(await note.textContent()).toBe(
      'No config file found: running on the defaults (the mock model); saves will go to /srv/app/config.yaml.',
    )
    expect(await page.locator('[data-config-file-error]').count()).toBe(0)
    await context.close()
  })

  it('lists, folded, what the running config was accepted with but not as written (a skipped card)', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    const status = {
      path: '/srv/app/config.yaml',
      source: 'file',
      file_error: null,
      warnings: [{ path: 'characters_dir: broken.json', message: 'skipped: not a character card' }],
    }
    await page.route('**/api/config/status', (route) => route.fulfill({ json: status }))
    await page.goto(`${server.url}/#chat`)
    const warnings = page.locator('[data-config-warnings]')
    await warnings.waitFor()
    expect(await warnings.locator('summary').textContent()).toBe(
      'Config warnings (1): the config is in force, but not all of it as written.',
    )
    await warnings.locator('summary').click()
    expect(await warnings.locator('li').textContent()).toContain('characters_dir: broken.json')
    expect(await warnings.locator('li').textContent()).toContain('skipped: not a character card')
    expect(await page.locator('[data-config-file-error]').count()).toBe(0)
    await context.close()
  })

  it('says which provider and model answer in the chat', async () => {
    const { context, page } = await openPage(browser, { viewport: 'phone', locale: 'en-US' })
    await page.goto(`${server.url}/#chat`)
    const answering = page.locator('[data-answering]')
    await answering.waitFor()
    expect(await answering.locator('[data-provider]').textContent()).toBe('mock-model')
    expect(await answering.locator('[data-model]').textContent()).toBe('mock-character')
    expect(await answering.textContent()).not.toContain('***')
    await shoot(page, 'chat-answering-phone')
    await context.close()
  })

  it('says "reached, but the key was refused" when the provider refuses the key', async () => {
    // A provider that is there and refuses every request, as one does with a wrong key.
    const refusing = createHttpServer((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }))
    })
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
    const port = (refusing.address() as AddressInfo).port
    const before = await (await fetch(`${server.url}/api/config`)).json()
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    try {
      const moved = await fetch(`${server.url}/api/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ llm: { base_url: `http://127.0.0.1:${port}/v1` } }),
      })
      expect(moved.status).toBe(200)
      await page.goto(`${server.url}/#provider`)
      await page.click('[data-action="doctor"]')
      const provider = page.locator('[data-check="provider"]')
      await provider.waitFor()
      expect(await provider.getAttribute('data-code')).toBe('key_refused')
      expect(await provider.locator('.check-outcome').textContent()).toBe('reached, but the key was refused')
      expect(await provider.textContent()).not.toMatch(/cannot be reached/)
      await shoot(page, 'doctor-key-refused-desktop')
    } finally {
      await fetch(`${server.url}/api/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ llm: { base_url: before.llm.base_url } }),
      })
      await context.close()
      await new Promise((resolve) => refusing.close(resolve))
    }
  })

  it('shows a check without a code (an older server) by its own message', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'en-US' })
    const checks = [
      { name: 'config', ok: true, message: 'the config is valid' },
      { name: 'provider', ok: false, message: 'cannot reach mock-model at http://127.0.0.1:1/v1/models' },
    ]
    await page.route('**/api/doctor', (route) => route.fulfill({ json: { ok: false, checks } }))
    await page.goto(`${server.url}/#provider`)
    await page.click('[data-action="doctor"]')
    const provider = page.locator('[data-check="provider"]')
    await provider.waitFor()
    expect(await provider.locator('.check-outcome').textContent()).toBe(
      'cannot reach mock-model at http://127.0.0.1:1/v1/models',
    )
    await page.unroute('**/api/doctor')
    // The real server against the mock model: every check passes.
    await page.click('[data-action="doctor"]')
    await page.locator('[data-check="model"].ok').waitFor()
    await context.close()
  })

  it('names the broken config file, the field and the problem, and says so on a refused save', async () => {
    const original = await readFile(server.configPath, 'utf8')
    const { context, page } = await openPage(browser, { viewport: 'phone', locale: 'zh-CN' })
    try {
      await writeFile(server.configPath, original.replace('name: 小测', 'name: 小测\n  reply_format: jsonn'))
      // The server watches its file: wait until it has read the broken edit.
      const deadline = Date.now() + 10_000
      let status: { file_error: null | { issues: { path: string }[] } } = { file_error: null }
      while (status.file_error === null && Date.now() < deadline) {
        status = await (await fetch(`${server.url}/api/config/status`)).json()
        if (status.file_error === null) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(status.file_error?.issues.map((issue) => issue.path)).toEqual(['character.reply_format'])
      await page.goto(`${server.url}/#character`)
      const banner = page.locator('.app > [data-config-file-error]')
      await banner.waitFor()
      const text = await banner.textContent()
      expect(text).toContain(server.configPath)
      expect(text).toContain('配置无效：character.reply_format：')
      expect(text).toContain('jsonn')
      await page.fill('textarea[name="character.persona"]', '新的人设')
      await page.click('[data-panel="character"] [data-action="save"]')
      await page.locator('.save-bar [data-config-file-error]').waitFor()
      expect(await page.locator('.save-bar [data-config-file-error]').textContent()).toContain(
        '保存会写入同一个文件',
      )
      await shoot(page, 'broken-file-phone', true)
    } finally {
      await writeFile(server.configPath, original)
      await context.close()
    }
  })
})

describe.skipIf(skipReason !== undefined)('the page with a wrong token', () => {
  const token = 'web-test-token-first-hour'
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let browser: Browser

  beforeAll(async () => {
    browserTest = await startBrowserTest({ token })
    ;({ server, browser } = browserTest)
  }, 60_000)

  afterAll(() => browserTest?.stop())

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`says the server refused the token and where to enter it (${viewport})`, async () => {
      const { context, page } = await openPage(browser, { viewport, locale: 'en-US', token: 'wrong-token' })
      await page.goto(`${server.url}/#chat`)
      const bar = page.locator('[data-login]')
      await bar.waitFor()
      expect(await bar.getAttribute('data-refused')).toBe('true')
      expect(await bar.textContent()).toContain('The server refused the token')
      expect(await bar.textContent()).toContain('server.token')
      await page.locator('[data-socket-status]', { hasText: 'the server refused the token' }).waitFor()
      await shoot(page, `token-refused-${viewport}`)
      await page.fill('input[name="token"]', token)
      await page.click('[data-login] button[type="submit"]')
      await bar.waitFor({ state: 'detached' })
      await page.locator('.dot-open').waitFor()
      // Signed in, the page reads what it could not before: the session's stored messages.
      await page.locator('[data-stored-count="0"]').waitFor()
      expect(await page.locator('.error-box').count()).toBe(0)
      await context.close()
    })
  }

  it('asks for a token, without calling it refused, when none was given', async () => {
    const { context, page } = await openPage(browser, { viewport: 'desktop', locale: 'zh-CN' })
    await page.goto(`${server.url}/#chat`)
    const bar = page.locator('[data-login]')
    await bar.waitFor()
    expect(await bar.getAttribute('data-refused')).toBe('false')
    expect(await bar.textContent()).toContain('需要访问令牌')
    await context.close()
  })
})
