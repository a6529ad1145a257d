/**
 * The `charpipe serve` process under faults. It runs the server in a child Node process: when the
 * launcher dies without passing on a signal (SIGKILL, a crash), the server must not live on holding
 * the port; it notices its IPC channel closing and shuts down. And SIGTERM must end the process even
 * while the history store is frozen, with the running turn closed by `llm_done`.
 */

import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveNodeFlags } from '../../src/cli/relaunch-with-node-flags.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { openTestSocket } from '../server/websocket-client.js'
import { serveArguments, spawnServe, waitForListening, watchServe } from '../support/spawn-serve.js'
import { describeMissingBinaries, startRedis } from './fault-processes.js'

const _repoRoot = resolve(import.meta.dirname, '../..')
const _tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-launcher-'))
})
afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

describe('serve launcher', { timeout: 120_000 }, () => {
  it('SIGKILL of the launcher ends the server process and frees the port', async () => {
    const configPath = join(folder, 'config.yaml')
    await writeFile(configPath, `storage:\n  sqlite_path: ${join(folder, 'charpipe.db')}\n`)
    // Without the heap flag on the command line, serve relaunches itself in a child process.
    const launcher = spawnServe(configPath, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] })
    // The pipe ends only when every process writing to it has exited: the launcher and the server.
    const outputEnded = new Promise<void>((done) => launcher.stdout!.once('end', done))
    const url = await waitForListening(watchServe(launcher))
    expect((await fetch(`${url}/livez`)).status).toBe(200)

    launcher.kill('SIGKILL')
    // Both processes have exited (a server left running would hold the pipe open: the test times out).
    await outputEnded
    await expect(fetch(`${url}/livez`)).rejects.toThrow()
  })
})

const missing = describeMissingBinaries()
if (missing && process.env.CI === 'true') throw new Error(`fault suite under CI: ${missing}`)

describe.skipIf(missing !== undefined)('serve shutdown with a frozen store', { timeout: 120_000 }, () => {
  let model: MockModelServer
  beforeAll(async () => {
    model = await startMockModelServer({
      script: { replies: [], default: { text: '一句很长很长的话。'.repeat(20), chunkSize: 2, delayMs: 50 } },
    })
  })
  afterAll(async () => {
    await model?.close()
  })

  it('SIGTERM while Redis is frozen: the turn gets llm_done and the process exits within the grace', async () => {
    const redis = await startRedis()
    try {
      const configPath = join(folder, 'frozen.yaml')
      await writeFile(
        configPath,
        [
          'server: { shutdown_grace_ms: 5000 }',
          `llm: { provider: custom, base_url: "${model.url}/v1", max_retries: 0 }`,
          'history: { store: redis }',
          `storage: { redis_url: "${redis.url}", sqlite_path: "${join(folder, 'frozen.db')}", timeout_ms: 1000 }`,
          'memory: { enabled: false }',
        ].join('\n'),
      )
      // With the heap flag given, serve runs in this one process (no launcher) and takes the signal itself.
      const serve = spawn(process.execPath, [...serveNodeFlags, ...serveArguments(configPath)], {
        cwd: folder,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const exited = new Promise<number | null>((done) => serve.once('exit', (code) => done(code)))
      const url = await waitForListening(watchServe(serve))
      const client = await openTestSocket(`${url}/ws`)
      client.send({ type: 'user_input', text: '说很多话' })
      await client.waitFor((frame) => frame.type === 'llm_chunk')
      redis.freeze()
      serve.kill('SIGTERM')
      // It exits while Redis is still frozen (it is thawed only afterwards): the store holds no shutdown.
      const code = await exited
      expect([0, 1]).toContain(code)
      const done = client.frames.filter((frame) => frame.type === 'llm_done')
      expect(done).toHaveLength(1)
      expect(done[0]).toMatchObject({ interrupted: true })
      // After llm_done only the truth about the turn's write may come: the store was frozen.
      for (const frame of client.frames.slice(client.frames.indexOf(done[0]!) + 1))
        expect(frame).toMatchObject({ type: 'turn_not_stored', turn: done[0]!.turn })
    } finally {
      redis.thaw()
      await redis.stop()
    }
  })
})
