/**
 * A config path given with `--config` must exist, for every command: a typo (`custom.yml` for
 * `custom.yaml`) is an error naming the path and the near file, never a silent run on the defaults.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliArguments } from '../support/cli-command.js'

let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-config-path-'))
  await writeFile(join(folder, 'custom.yaml'), 'character: { name: 小雪 }\n')
})
afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, cliArguments(args), {
    cwd: folder,
    env: { ...process.env, CHARPIPE_LOG_LEVEL: 'warn' },
  })
  child.stdin.end()
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })))
}

describe('--config names a file that does not exist', { timeout: 60_000 }, () => {
  it.each([
    ['serve', ['serve', '--port', '0']],
    ['chat', ['chat']],
    ['preview', ['preview', 'hello']],
    ['doctor', ['doctor']],
    ['validate', ['validate']],
    ['kb', ['kb', 'list']],
  ])('%s exits non-zero naming the path and the near file', async (_name, args) => {
    const result = await runCli([...args, '--config', 'custom.yml'])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('config file custom.yml not found; did you mean custom.yaml?')
    expect(result.stdout).not.toContain('小助手')
    // Nothing was created in its place.
    expect((await readdir(folder)).sort()).toEqual(['custom.yaml'])
  })

  it('names the path alone when nothing near exists', async () => {
    const result = await runCli(['validate', '--config', join(folder, 'nowhere', 'config.yaml')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`config file ${join(folder, 'nowhere', 'config.yaml')} not found`)
    expect(result.stderr).not.toContain('did you mean')
  })

  it('the implicit ./config.yaml may be absent: the defaults are used and said to be', async () => {
    const result = await runCli(['validate'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('./config.yaml not found; the defaults are valid')
  })
})
