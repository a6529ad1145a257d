/**
 * `charpipe serve` runs the server in a child Node process. When the launcher dies without passing
 * on a signal (SIGKILL, a crash), the server must not live on holding the port: it notices its IPC
 * channel closing and shuts down.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repoRoot = resolve(import.meta.dirname, '../..')
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
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
    const launcher = spawn(
      process.execPath,
      [
        '--import',
        tsxLoader,
        join(repoRoot, 'src/cli/entry.ts'),
        'serve',
        '--config',
        configPath,
        '--port',
        '0',
      ],
      { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    launcher.stdout!.on('data', (chunk) => (stdout += chunk))
    launcher.stderr!.resume()
    // The pipe ends only when every process writing to it has exited: the launcher and the server.
    const outputEnded = new Promise<void>((done) => launcher.stdout!.once('end', done))
    let url: string | undefined
    for (let attempt = 0; attempt < 600 && !url; attempt++) {
      url = stdout.match(/listening on (http:\/\/\S+)/)?.[1]
      if (!url) await new Promise((done) => setTimeout(done, 100))
    }
    expect(url).toBeDefined()
    expect((await fetch(`${url}/livez`)).status).toBe(200)

    launcher.kill('SIGKILL')
    const startedAt = Date.now()
    await outputEnded
    expect(Date.now() - startedAt).toBeLessThan(15_000)
    await expect(fetch(`${url}/livez`)).rejects.toThrow()
  })
})
