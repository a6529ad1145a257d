/** `charpipe serve` as a child process, the way users run it. */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveNodeFlags } from '../../src/cli/relaunch-with-node-flags.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { serveCommand, type WatchedServe, waitForListening, watchServe } from '../support/spawn-serve.js'
import { openTestSocket } from './websocket-client.js'

// The child runs in a temporary folder (so `./data/…` defaults land there), loading TypeScript through tsx.
let folder: string
let model: MockModelServer

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-serve-'))
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
  await rm(folder, { recursive: true, force: true })
})

function spawnServe(args: string[], cwd = folder, env: Record<string, string> = {}): WatchedServe {
  return watchServe(
    spawn(process.execPath, serveCommand(args), {
      cwd,
      env: { ...process.env, CHARPIPE_LOG_LEVEL: 'info', ...env },
    }),
  )
}

const waitForUrl = (serve: WatchedServe) => waitForListening(serve)

// Each case starts a fresh Node process compiling the sources; on a busy machine that takes a while.
describe('charpipe serve', { timeout: 120_000 }, () => {
  it('says which config, provider and model it runs, prints the listening line, answers, and on SIGTERM ends the running turn as interrupted and exits 0', async () => {
    const configPath = join(folder, 'config.yaml')
    await writeFile(
      configPath,
      [
        'llm:',
        '  provider: custom',
        `  base_url: ${model.url}/v1`,
        '  max_retries: 0',
        'storage:',
        `  sqlite_path: ${join(folder, 'charpipe.db')}`,
      ].join('\n'),
    )
    const serve = spawnServe(['--config', configPath, '--port', '0'])
    const url = await waitForUrl(serve)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    // Which file, provider and model, then the one listening line.
    expect(serve.stdout().trim().split('\n')).toEqual([
      `charpipe config ${configPath} · provider custom · model (the provider's default)`,
      `charpipe listening on ${url}`,
    ])
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true })

    model.script({ text: `{"emotion":"开心","text":"${'慢慢说。'.repeat(100)}"}`, chunkSize: 2, delayMs: 20 })
    const client = await openTestSocket(`${url}/ws`)
    client.send({ type: 'user_input', session: 'term', text: '说很久' })
    await client.waitFor((frame) => frame.type === 'llm_sentence')
    serve.child.kill('SIGTERM')
    expect(await serve.exited).toBe(0)
    expect(client.frames.filter((frame) => frame.type === 'llm_done')).toMatchObject([{ interrupted: true }])

    const again = spawnServe(['--config', configPath, '--port', '0'])
    const secondUrl = await waitForUrl(again)
    const history = await (await fetch(`${secondUrl}/api/sessions/term/messages`)).json()
    expect(history.messages.at(-1)).toMatchObject({ role: 'assistant', interrupted: true })
    again.child.kill('SIGINT')
    expect(await again.exited).toBe(0)

    // Not a terminal: one JSON object per log line, the module named once.
    const logLines = `${serve.stderr()}${again.stderr()}`.trim().split('\n')
    expect(logLines.length).toBeGreaterThan(2)
    for (const line of logLines) {
      expect(() => JSON.parse(line)).not.toThrow()
      expect(line.match(/"module"/g)?.length ?? 0).toBeLessThanOrEqual(1)
    }
  })

  it('runs the server in a Node process with a larger initial heap, and stops it on SIGINT', async () => {
    const configPath = join(folder, 'heap.yaml')
    await writeFile(configPath, 'history: { store: memory }\nmemory: { enabled: false }\n')
    const serve = spawnServe(['--config', configPath, '--port', '0'])
    const url = await waitForUrl(serve)
    // Linux names a process's children in /proc; the server is the one child of `serve`.
    const children = await readFile(`/proc/${serve.child.pid}/task/${serve.child.pid}/children`, 'utf8')
    const [server] = children.trim().split(/\s+/)
    const commandLine = (await readFile(`/proc/${server}/cmdline`, 'utf8')).split('\0').filter(Boolean)
    expect(commandLine).toEqual(expect.arrayContaining(serveNodeFlags))
    expect(commandLine.slice(-5)).toEqual(['serve', '--config', configPath, '--port', '0'])
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true })
    // Ctrl-C in a terminal signals both processes: the second signal must not cut the shutdown short.
    serve.child.kill('SIGINT')
    process.kill(Number(server), 'SIGINT')
    expect(await serve.exited).toBe(0)
  })

  it('does not pass a stop signal on to a server that is already stopping (exit 0, one shutdown)', async () => {
    const configPath = join(folder, 'late-signal.yaml')
    await writeFile(configPath, 'history: { store: memory }\nmemory: { enabled: false }\n')
    const serve = spawnServe(['--config', configPath, '--port', '0'])
    await waitForUrl(serve)
    const children = await readFile(`/proc/${serve.child.pid}/task/${serve.child.pid}/children`, 'utf8')
    const [server] = children.trim().split(/\s+/)
    process.kill(Number(server), 'SIGINT')
    for (let attempt = 0; attempt < 300 && !serve.stderr().includes('shutting down'); attempt++) {
      await new Promise((done) => setTimeout(done, 10))
    }
    // The launcher's copy comes late: while the server shuts down, or after it has gone.
    serve.child.kill('SIGINT')
    expect(await serve.exited).toBe(0)
    expect(serve.stderr()).not.toContain('already shutting down')
  })

  it('starts with the defaults (provider mock) when ./config.yaml is missing, and says where saves go', async () => {
    const empty = await mkdtemp(join(folder, 'empty-'))
    const serve = spawnServe(['--port', '0'], empty, { CHARPIPE_LOG_FORMAT: 'pretty' })
    const url = await waitForUrl(serve)
    expect(serve.stdout()).toContain(
      `charpipe config ./config.yaml not found: running on the defaults with the builtin mock provider (model mock-character); saves from the page will create ${join(empty, 'config.yaml')}`,
    )
    const config = await (await fetch(`${url}/api/config`)).json()
    expect(config.llm.provider).toBe('mock')
    serve.child.kill('SIGTERM')
    expect(await serve.exited).toBe(0)
    // Asked for readable lines: time, level, module, message, key=value.
    expect(serve.stderr()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}server: shutting down signal=SIGTERM$/m)
    expect(serve.stderr()).not.toContain('{"level"')
  })

  it('refuses a non-loopback host without a token, saying why', async () => {
    const serve = spawnServe(['--host', '0.0.0.0', '--port', '0'], await mkdtemp(join(folder, 'open-')))
    expect(await serve.exited).not.toBe(0)
    expect(serve.stderr()).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/)
    expect(serve.stderr()).toContain('server.token')
  })

  it('rejects a bad --port', async () => {
    const serve = spawnServe(['--port', 'eighty'])
    expect(await serve.exited).toBe(2)
    expect(serve.stderr()).toContain('--port')
  })
})
