/**
 * MCP servers under `charpipe serve`, run the way users run it: a server that never finishes its
 * handshake does not hold up `listening on`, a stdio server's tool answers through the HTTP API, and
 * SIGTERM leaves no child process running; a Streamable HTTP server's tool answers a model without
 * function calling (tools described in the prompt).
 */

import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { spawnServe, waitForListening, watchServe } from '../support/spawn-serve.js'
import { startHttpMcpServer } from './start-http-mcp-server.js'

const repoRoot = resolve(import.meta.dirname, '../..')
const _tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
const stdioScript = join(repoRoot, 'test/tools/mcp-stdio-server.mjs')
let folder: string
let model: MockModelServer

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-mcp-serve-'))
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
  await rm(folder, { recursive: true, force: true })
})

async function readOr(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '')
}

async function waitFor<T>(read: () => Promise<T | undefined>, what: string, child: ChildProcess): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await read()
    if (value) return value
    if (child.exitCode !== null) throw new Error(`serve exited while waiting for ${what}`)
    await new Promise((done) => setTimeout(done, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('MCP servers under charpipe serve', () => {
  it('a silent server does not delay listening; a tool answers; SIGTERM leaves no child', async () => {
    const eventsFile = join(folder, 'events.txt')
    const silentPidFile = join(folder, 'silent.pid')
    const configPath = join(folder, 'config.yaml')
    const silent = `require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)`
    await writeFile(
      configPath,
      [
        'llm:',
        '  provider: custom',
        `  base_url: ${model.url}/v1`,
        '  model: m',
        '  max_retries: 0',
        'history:',
        '  store: memory',
        'memory:',
        '  enabled: false',
        'tools:',
        '  mcp_servers:',
        '    local:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(stdioScript)}]`,
        `      env: { MCP_EVENTS_FILE: ${JSON.stringify(eventsFile)} }`,
        '    silent:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: ["-e", ${JSON.stringify(silent)}, ${JSON.stringify(silentPidFile)}]`,
        '      timeout_ms: 8000',
      ].join('\n'),
    )
    const serve = watchServe(
      spawnServe(configPath, { cwd: folder, env: { ...process.env, CHARPIPE_LOG_LEVEL: 'info' } }),
    )
    const { child, exited } = serve
    try {
      const url = await waitForListening(serve)
      const tools = async () =>
        (await (await fetch(`${url}/api/tools`)).json()) as { servers: { name: string; state: string }[] }
      const stateOf = async (name: string) =>
        (await tools()).servers.find((entry) => entry.name === name)?.state
      // The silent server is still connecting (for up to 8 s) while the server already listens.
      expect(await stateOf('silent')).toBe('connecting')
      await waitFor(async () => (await stateOf('local')) === 'ready', 'the local server', child)

      // The turn waits for the connecting silent server at most its timeout_ms, then goes on without it.
      model.script([
        { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'via serve' } }] },
        { text: 'done' },
      ])
      const chat = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'go', session: 'mcp' }),
      })
      expect(await chat.text()).toContain('done')
      expect(JSON.stringify(model.requests.at(-1)!.body)).toContain('echo: via serve')

      const localPid = Number((await readOr(eventsFile)).match(/started (\d+)/)![1])
      expect(isAlive(localPid)).toBe(true)
      expect(await stateOf('silent')).not.toBe('ready')
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      // The silent server is retried with backoff: the last one started is gone too.
      const silentPid = Number(await readOr(silentPidFile))
      expect(silentPid).toBeGreaterThan(0)
      expect(isAlive(localPid)).toBe(false)
      expect(isAlive(silentPid)).toBe(false)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }, 90_000)

  it('a Streamable HTTP server answers a model without function calling', async () => {
    const http = await startHttpMcpServer({ toolPrefix: 'web_' })
    const configPath = join(folder, 'config-http.yaml')
    await writeFile(
      configPath,
      [
        'llm:',
        '  provider: custom',
        `  base_url: ${model.url}/v1`,
        '  model: m',
        '  max_retries: 0',
        '  function_calling: false',
        'history:',
        '  store: memory',
        'memory:',
        '  enabled: false',
        'tools:',
        '  mcp_servers:',
        '    web:',
        `      url: ${http.url}`,
      ].join('\n'),
    )
    const serve = watchServe(spawnServe(configPath, { cwd: folder }))
    const { child, exited } = serve
    try {
      const url = await waitForListening(serve)
      model.reset()
      model.script([
        { text: '{"tool_call": {"name": "web_echo", "arguments": {"text": "no native tools"}}}' },
        { text: 'done over http' },
      ])
      const chat = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'go', session: 'mcp-http' }),
      })
      expect(await chat.text()).toContain('done over http')
      const first = model.requests[0]!.body as { tools?: unknown; messages: { content: unknown }[] }
      expect(first.tools).toBeUndefined()
      expect(JSON.stringify(first.messages[0]!.content)).toContain('web_echo')
      expect(JSON.stringify(model.requests[1]!.body)).toContain('echo: no native tools')
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await http.close()
    }
  }, 90_000)
})
