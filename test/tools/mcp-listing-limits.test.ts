/**
 * A real MCP server (official SDK, `mcp-misbehaving-server.mjs`) that abuses `tools/list`: each
 * abuse is refused naming its limit, on connecting and after `list_changed` alike, while the
 * engine stays up and the tools of a well-behaved server beside it keep working.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

const misbehaving = fileURLToPath(new URL('./mcp-misbehaving-server.mjs', import.meta.url))
const wellBehaved = fileURLToPath(new URL('./mcp-stdio-server.mjs', import.meta.url))

let model: MockModelServer
let folder: string
let logLines: string[]
const opened: Charpipe[] = []

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
beforeEach(() => {
  model.reset()
  logLines = []
  folder = mkdtempSync(join(tmpdir(), 'charpipe-mcp-limits-'))
})
afterEach(async () => {
  for (const charpipe of opened.splice(0)) await charpipe.close()
  rmSync(folder, { recursive: true, force: true })
})

const eventsFile = () => join(folder, 'events.txt')

/** The `tools/list` requests each process of the server saw, one list per process. */
function listingsByProcess(): string[][] {
  const byProcess: string[][] = []
  for (const line of readFileSync(eventsFile(), 'utf8').split('\n').filter(Boolean)) {
    if (line === 'started') byProcess.push([])
    else byProcess.at(-1)?.push(line)
  }
  return byProcess
}

function badServer(mode: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    args: [misbehaving],
    env: { MCP_MISBEHAVE: mode, MCP_EVENTS_FILE: eventsFile(), ...env },
    timeout_ms: 10_000,
    ...extra,
  }
}

async function open(bad: ReturnType<typeof badServer>) {
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logLines.push(line) },
  })
  const config = makeConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0 },
    tools: {
      mcp_servers: { bad, good: { command: process.execPath, args: [wellBehaved], timeout_ms: 10_000 } },
    },
  })
  const charpipe = await createCharpipe(config, { logger })
  opened.push(charpipe)
  return charpipe
}

async function errorOfBadServer(charpipe: Charpipe): Promise<string> {
  return vi.waitFor(
    () => {
      const status = charpipe.inspect.tools().servers.find((server) => server.name === 'bad')
      if (status?.state !== 'failed' || !status.error)
        throw new Error(`not failed yet: ${JSON.stringify(status)}`)
      return status.error
    },
    { timeout: 30_000, interval: 20 },
  )
}

/** The well-behaved server's tool still works in a whole turn. */
async function expectOtherToolsWork(charpipe: Charpipe) {
  await vi.waitFor(
    () =>
      expect(charpipe.inspect.tools().servers.find((server) => server.name === 'good')?.state).toBe('ready'),
    { timeout: 20_000, interval: 20 },
  )
  model.reset()
  model.script([
    { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'still here' } }] },
    { text: 'Fine.' },
  ])
  const events = await collectEvents(charpipe.generate({ text: 'echo', session: `s-${Date.now()}` }))
  expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ result: 'echo: still here' })
  expect(doneOf(events).text).toBe('Fine.')
}

describe('MCP listing limits', () => {
  it('a server that always answers with a new cursor is refused at max_list_pages', async () => {
    const charpipe = await open(badServer('endless-cursor', { max_list_pages: 20 }))
    const error = await errorOfBadServer(charpipe)
    expect(error).toContain('tools/list refused: the server sent more than 20 pages')
    expect(error).toContain('tools.mcp_servers.bad.max_list_pages')
    expect(listingsByProcess()[0]).toHaveLength(20)
    expect(charpipe.inspect.tools().tools.some((tool) => tool.server === 'bad')).toBe(false)
    await expectOtherToolsWork(charpipe)
  })

  it('one deadline bounds the whole listing, not each page', async () => {
    // Every page comes in well within timeout_ms; the listing never ends by itself.
    const charpipe = await open(
      badServer(
        'slow-endless-cursor',
        { max_list_pages: 1_000_000, timeout_ms: 8000 },
        { MCP_PAGE_DELAY_MS: '40' },
      ),
    )
    const error = await errorOfBadServer(charpipe)
    expect(error).toContain('listing every page took longer than 8000 ms')
    expect(error).toContain('tools.mcp_servers.bad.timeout_ms')
    await expectOtherToolsWork(charpipe)
  })

  it('a repeated cursor is refused', async () => {
    const charpipe = await open(badServer('repeat-cursor'))
    const error = await errorOfBadServer(charpipe)
    expect(error).toContain('the server repeated the cursor of an earlier page')
    expect(listingsByProcess()[0]).toEqual(['list ', 'list a', 'list b'])
  })

  it('too many tools are refused at max_tools', async () => {
    const charpipe = await open(badServer('many-tools', { max_tools: 1000 }))
    const error = await errorOfBadServer(charpipe)
    expect(error).toContain('the server listed more than 1000 tools')
    expect(error).toContain('tools.mcp_servers.bad.max_tools')
    await expectOtherToolsWork(charpipe)
  })

  it('a tool larger than max_schema_chars is refused, naming the tool', async () => {
    const charpipe = await open(badServer('huge-schema'))
    const error = await errorOfBadServer(charpipe)
    expect(error).toMatch(/the tool "huge" takes \d+ characters, more than 100000/)
    expect(error).toContain('tools.mcp_servers.bad.max_schema_chars')
  })

  it('after list_changed the same limits hold, a burst of notifications costs one listing, and the server is reconnected', async () => {
    const charpipe = await open(badServer('turns-endless', { max_list_pages: 5 }))
    await vi.waitFor(
      () =>
        expect(charpipe.inspect.tools().tools.map((tool) => tool.name)).toEqual(
          expect.arrayContaining(['break', 'ok']),
        ),
      { timeout: 20_000, interval: 20 },
    )
    model.script([{ toolCalls: [{ id: 'c1', name: 'break', arguments: {} }] }, { text: 'Broken.' }])
    await collectEvents(charpipe.generate({ text: 'break it' }))
    const refusals = () => logLines.filter((line) => line.includes('MCP tools could not be listed again'))
    await vi.waitFor(() => expect(refusals()).toHaveLength(1), { timeout: 20_000, interval: 20 })
    expect(refusals()[0]).toContain('tools.mcp_servers.bad.max_list_pages')
    // The first listing, then for three notifications one listing: five pages, the sixth refused.
    const [first] = listingsByProcess()
    expect(first).toEqual(['list ', 'list ', 'list page-2', 'list page-3', 'list page-4', 'list page-5'])
    // The server is started again (a fresh process lists well) and its tools come back.
    await vi.waitFor(
      () =>
        expect(charpipe.inspect.tools().servers.find((server) => server.name === 'bad')?.state).toBe('ready'),
      { timeout: 20_000, interval: 20 },
    )
    expect(refusals()).toHaveLength(1)
    await expectOtherToolsWork(charpipe)
  })
})
