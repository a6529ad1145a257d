/**
 * The page's MCP import in a real browser against `charpipe serve`: bad JSON gets a clear error; a
 * pasted `mcpServers` JSON adds its remote server through the admin API (it connects and its tools
 * are listed) and gives the stdio server back as YAML for config.yaml, saying why.
 */
import { readFile } from 'node:fs/promises'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HttpMcpServer, startHttpMcpServer } from '../tools/start-http-mcp-server.js'
import {
  type BrowserTest,
  findBrowserSkipReason,
  openTestPage,
  type ServerUnderTest,
  startBrowserTest,
} from './web-test-harness.js'

const skipReason = findBrowserSkipReason()
if (skipReason) console.warn(skipReason)

describe.skipIf(skipReason !== undefined)('MCP servers pasted into the page', () => {
  let browserTest: BrowserTest
  let server: ServerUnderTest
  let mcp: HttpMcpServer
  let page: Page

  beforeAll(async () => {
    mcp = await startHttpMcpServer({ toolPrefix: 'pasted_' })
    browserTest = await startBrowserTest()
    server = browserTest.server
    page = await openTestPage(browserTest.browser)
    await page.goto(`${server.url}/#pipeline`)
    await page.locator('[data-panel="pipeline"]').waitFor()
  }, 60_000)

  afterAll(async () => {
    await browserTest?.stop()
    await mcp?.close()
  })

  const form = () => page.locator('[data-section="mcp-import"]')
  const paste = async (text: string) => {
    await form().locator('textarea[name="mcp-servers-json"]').fill(text)
    await form().locator('[data-action="mcp-import"]').click()
  }

  it('says what is wrong with JSON that does not parse, and changes nothing', async () => {
    const before = await readFile(server.configPath, 'utf8')
    await paste('{"mcpServers": {"web": {"url": ')
    await form().locator('[data-mcp-import="errors"]').getByText('不是有效的 JSON').waitFor()
    await paste('{"mcpServers": {"web": {"args": ["x"]}}}')
    await form().locator('[data-mcp-import="errors"]').getByText('服务器 "web"：需要 "command"').waitFor()
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
  })

  it('adds the remote server through the API and gives the stdio one as YAML for config.yaml', async () => {
    await paste(
      JSON.stringify({
        mcpServers: {
          web: { type: 'http', url: mcp.url },
          files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        },
      }),
    )
    await page.locator('.toast-success').getByText('已添加远程服务器：web').waitFor()
    const yaml = form().locator('[data-mcp-import="yaml"]')
    await yaml.getByText('管理接口不接受这类服务器').waitFor()
    const snippet = await yaml.locator('pre').textContent()
    expect(snippet).toContain('tools:\n  mcp_servers:\n    files:\n      command: "npx"')
    expect(snippet).not.toContain('web')

    // The file now holds the remote server only; the stdio one is left to the person at the file.
    const saved = await readFile(server.configPath, 'utf8')
    expect(saved).toContain(mcp.url)
    expect(saved).not.toContain('server-filesystem')

    // The remote server connects and its tools are offered.
    const tools = page.locator('[data-section="tools"]')
    for (let attempt = 0; attempt < 50; attempt++) {
      if ((await tools.locator('[data-tool="pasted_echo"]').count()) > 0) break
      await tools.locator('[data-action="tools-refresh"]').click()
      await page.waitForTimeout(200)
    }
    await tools.locator('[data-mcp-server="web"]').getByText('ready').waitFor()
    await tools.locator('[data-tool="pasted_echo"]').waitFor()
  })
})
