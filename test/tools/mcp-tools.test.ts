/**
 * Tools from real MCP servers (written on the official SDK: a stdio child and a Streamable HTTP
 * server) in whole turns against the mock model server: the model's call reaches the MCP server and
 * its answer reaches the next model request, natively and described in the prompt.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf, typesOf } from '../../src/testing/turn-events.js'
import { createMcpTools } from '../../src/tools/index.js'
import { type HttpMcpServer, startHttpMcpServer } from './start-http-mcp-server.js'

const stdioScript = fileURLToPath(new URL('./mcp-stdio-server.mjs', import.meta.url))

let model: MockModelServer
let folder: string
let http: HttpMcpServer
const opened: Charpipe[] = []

beforeAll(async () => {
  model = await startMockModelServer()
  http = await startHttpMcpServer({ toolPrefix: 'remote_' })
})
afterAll(async () => {
  await model.close()
  await http.close()
})
beforeEach(() => {
  model.reset()
  folder = mkdtempSync(join(tmpdir(), 'charpipe-mcp-'))
})
afterEach(async () => {
  for (const charpipe of opened.splice(0)) await charpipe.close()
  rmSync(folder, { recursive: true, force: true })
})

function eventsFile() {
  return join(folder, 'events.txt')
}

function readServerEvents(): string[] {
  try {
    return readFileSync(eventsFile(), 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

function stdioServer(extra: Record<string, unknown> = {}) {
  return {
    command: process.execPath,
    args: [stdioScript],
    env: { MCP_EVENTS_FILE: eventsFile() },
    timeout_ms: 10_000,
    ...extra,
  }
}

function configOf(tools: CharpipeConfigInput['tools'], llm: Record<string, unknown> = {}) {
  return makeConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0, ...llm },
    tools,
  })
}

async function open(tools: CharpipeConfigInput['tools'], llm: Record<string, unknown> = {}) {
  const charpipe = await createCharpipe(configOf(tools, llm))
  opened.push(charpipe)
  return charpipe
}

async function waitFor<T>(read: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = read()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

function toolMessages(index: number): string[] {
  const body = model.requests[index]!.body as { messages: { role: string; content: unknown }[] }
  return body.messages.filter((message) => message.role === 'tool').map((message) => String(message.content))
}

function resultOf(events: CharpipeEvent[]) {
  return events.find((event) => event.type === 'tool_result') as
    | (CharpipeEvent & { result: unknown; isError?: boolean })
    | undefined
}

describe('MCP tools in a turn', () => {
  it('a stdio server: the call reaches it and its answer reaches the next model request', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer({ type: 'stdio' }) } })
    model.script([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'hello' } }] },
      { text: 'It said hello.' },
    ])
    const events = await collectEvents(charpipe.generate({ text: 'echo hello' }))
    expect(typesOf(events).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(resultOf(events)).toMatchObject({ result: 'echo: hello' })
    // The tool's text is the tool message as it is: encoded once, not JSON-quoted again.
    expect(toolMessages(1)).toEqual(['echo: hello'])
    const offered = (model.requests[0]!.body as { tools: { function: { name: string } }[] }).tools
    expect(offered.map((tool) => tool.function.name)).toContain('echo')
    expect(doneOf(events).text).toBe('It said hello.')
    expect(charpipe.inspect.tools().servers).toEqual([{ name: 'local', state: 'ready' }])
    expect(charpipe.inspect.tools().tools).toContainEqual({
      name: 'echo',
      description: 'Repeats the text',
      server: 'local',
    })
  })

  it('a Streamable HTTP server with function_calling off: structured content goes to the model as JSON', async () => {
    // The entry as MCP servers document it (with its `type`) is accepted as it is.
    const charpipe = await open(
      { mcp_servers: { web: { type: 'http', url: http.url } } },
      { function_calling: false },
    )
    model.script([
      { text: '{"tool_call": {"name": "remote_weather", "arguments": {"city": "Oslo"}}}' },
      { text: 'Mild in Oslo.' },
    ])
    const events = await collectEvents(charpipe.generate({ text: 'weather?' }))
    expect(typesOf(events).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(resultOf(events)).toMatchObject({ result: '{"city":"Oslo","celsius":21}' })
    const first = model.requests[0]!.body as { tools?: unknown; messages: { content: string }[] }
    expect(first.tools).toBeUndefined()
    expect(first.messages[0]!.content).toContain('remote_weather')
    const told = (model.requests[1]!.body as { messages: { content: string }[] }).messages.at(-1)!.content
    expect(told).toContain('[工具结果 remote_weather] {"city":"Oslo","celsius":21}')
    expect(doneOf(events).text).toBe('Mild in Oslo.')
  })

  it('structured content reaches the model natively as JSON encoded once', async () => {
    const charpipe = await open({ mcp_servers: { web: { url: http.url } } })
    model.script([
      { toolCalls: [{ id: 'c1', name: 'remote_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Mild.' },
    ])
    await collectEvents(charpipe.generate({ text: 'weather?' }))
    const [message] = toolMessages(1)
    expect(JSON.parse(message!)).toEqual({ city: 'Oslo', celsius: 21 })
  })

  it('an error answer is handed to the model as an error and the turn goes on', async () => {
    const charpipe = await open({ mcp_servers: { web: { url: http.url } } })
    model.script([{ toolCalls: [{ id: 'c1', name: 'remote_fail', arguments: {} }] }, { text: 'Sorry.' }])
    const events = await collectEvents(charpipe.generate({ text: 'try' }))
    expect(resultOf(events)).toMatchObject({ result: { error: 'the disk is on fire' } })
    expect(toolMessages(1).join()).toContain('the disk is on fire')
    expect(doneOf(events)).toMatchObject({ text: 'Sorry.', interrupted: false })
  })

  it('cuts a long answer with a note', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer({ max_result_chars: 100 }) } })
    model.script([{ toolCalls: [{ id: 'c1', name: 'big', arguments: {} }] }, { text: 'Long.' }])
    const events = await collectEvents(charpipe.generate({ text: 'big' }))
    const result = String(resultOf(events)?.result)
    expect(result.startsWith('x'.repeat(100))).toBe(true)
    expect(result).toContain('result cut: 5000 characters')
  })

  it('an interrupt during a slow tool ends the turn at once and the server sees the cancellation', async () => {
    const charpipe = await open({ mcp_servers: { web: { url: http.url }, local: stdioServer() } })
    for (const tool of ['slow', 'remote_slow']) {
      model.reset()
      model.script([{ toolCalls: [{ id: 'c1', name: tool, arguments: {} }] }, { text: 'never' }])
      const turn = collectEvents(charpipe.generate({ text: 'slow', session: tool }))
      if (tool === 'slow') await waitFor(() => readServerEvents().includes('slow'), 'the slow call')
      else await waitFor(() => http.events.includes('slow'), 'the slow call')
      await charpipe.interrupt(tool)
      const events = await turn
      expect(doneOf(events).interrupted).toBe(true)
      // At once: the tool takes a minute, and answers 'finally done' even when cancelled; the turn
      // waited for neither.
      expect(JSON.stringify(events)).not.toContain('finally done')
      if (tool === 'slow')
        await waitFor(
          () => readServerEvents().includes('cancelled'),
          `the cancellation: ${readServerEvents()}`,
        )
      else await waitFor(() => http.events.includes('cancelled'), `the remote cancellation ${http.events}`)
      expect(model.requests).toHaveLength(1)
    }
  })

  it('a stdio server killed mid-session is restarted and the next call works', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer() } })
    const pidOf = async (session: string) => {
      model.script([{ toolCalls: [{ id: 'c1', name: 'whoami', arguments: {} }] }, { text: 'ok' }])
      const events = await collectEvents(charpipe.generate({ text: 'pid', session }))
      return Number(resultOf(events)?.result)
    }
    const first = await pidOf('a')
    expect(first).toBeGreaterThan(0)
    process.kill(first, 'SIGKILL')
    await waitFor(() => charpipe.inspect.tools().servers[0]?.state === 'failed', 'the server to be seen gone')
    expect(charpipe.inspect.tools().tools).toEqual([])
    await waitFor(() => charpipe.inspect.tools().servers[0]?.state === 'ready', 'the restart')
    const second = await pidOf('b')
    expect(second).toBeGreaterThan(0)
    expect(second).not.toBe(first)
  })

  it('leaves no child process after close', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer() } })
    const started = await waitFor(
      () => readServerEvents().find((line) => line.startsWith('started')),
      'the server to start',
    )
    const pid = Number(started.split(' ')[1])
    await charpipe.close()
    await waitFor(() => !isAlive(pid), 'the child to end')
  })

  it('two servers offering one name: the later one fails naming both and suggesting prefix', async () => {
    const charpipe = await open({
      mcp_servers: { one: stdioServer(), two: stdioServer({ env: {} }) },
    })
    await waitFor(
      () => charpipe.inspect.tools().servers.every((server) => server.state !== 'connecting'),
      'both',
    )
    const two = charpipe.inspect.tools().servers.find((server) => server.name === 'two')
    expect(two?.state).toBe('failed')
    expect(two?.error).toContain('offered by both one and two')
    expect(two?.error).toContain('prefix')
    expect(charpipe.inspect.tools().tools.every((tool) => tool.server === 'one')).toBe(true)
  })

  it('maps names providers refuse and maps them back; include keeps only the named tools', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer({ prefix: 'fs.', include: ['echo'] }) } })
    await waitFor(() => charpipe.inspect.tools().servers[0]?.state === 'ready', 'the server')
    const names = charpipe.inspect.tools().tools.map((tool) => tool.name)
    expect(names).toHaveLength(1)
    expect(names[0]).toMatch(/^fs_echo_[0-9a-f]{6}$/)
    model.script([{ toolCalls: [{ id: 'c1', name: names[0]!, arguments: { text: 'x' } }] }, { text: 'ok' }])
    const events = await collectEvents(charpipe.generate({ text: 'go' }))
    expect(resultOf(events)).toMatchObject({ result: 'echo: x' })
  })

  it('honours tools/list_changed: a tool the server adds is offered from then on', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer() } })
    model.script([{ toolCalls: [{ id: 'c1', name: 'grow', arguments: {} }] }, { text: 'grown' }])
    await collectEvents(charpipe.generate({ text: 'grow' }))
    await waitFor(
      () => charpipe.inspect.tools().tools.some((tool) => tool.name === 'sprout'),
      'the new tool to be listed',
    )
    model.script([{ toolCalls: [{ id: 'c2', name: 'sprout', arguments: {} }] }, { text: 'ok' }])
    const events = await collectEvents(charpipe.generate({ text: 'sprout' }))
    expect(resultOf(events)).toMatchObject({ result: 'sprouted' })
  })

  it('config changes reconnect only what changed', async () => {
    const charpipe = await open({ mcp_servers: { local: stdioServer(), web: { url: http.url } } })
    await waitFor(() => charpipe.inspect.tools().servers.every((server) => server.state === 'ready'), 'both')
    const before = readServerEvents().filter((line) => line.startsWith('started'))
    expect(before).toHaveLength(1)
    await charpipe.reload(
      configOf({ mcp_servers: { local: stdioServer(), web: { url: http.url, exclude: ['remote_fail'] } } }),
    )
    await waitFor(
      () => charpipe.inspect.tools().servers.every((server) => server.state === 'ready'),
      'both again',
    )
    const names = charpipe.inspect.tools().tools.map((tool) => tool.name)
    expect(names).toContain('remote_echo')
    expect(names).not.toContain('remote_fail')
    expect(readServerEvents().filter((line) => line.startsWith('started'))).toEqual(before)
  })
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('createMcpTools', () => {
  it("turns one server's tools into charpipe tools for createCharpipe({ tools })", async () => {
    const mcp = await createMcpTools('local', stdioServer({ include: ['echo'] }))
    try {
      expect(mcp.tools.map((tool) => tool.name)).toEqual(['echo'])
      const charpipe = await createCharpipe(configOf(undefined), { tools: mcp.tools })
      opened.push(charpipe)
      model.script([{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'lib' } }] }, { text: 'ok' }])
      const events = await collectEvents(charpipe.generate({ text: 'go' }))
      expect(resultOf(events)).toMatchObject({ result: 'echo: lib' })
    } finally {
      await mcp.close()
    }
  })

  it('a server that cannot start is a clear error', async () => {
    await expect(
      createMcpTools('broken', {
        command: process.execPath,
        args: ['-e', 'process.exit(3)'],
        timeout_ms: 5000,
      }),
    ).rejects.toThrow(/MCP server broken/)
  })
})
