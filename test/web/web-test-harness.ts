/**
 * What the browser tests share: Debian's chromium driven by playwright-core, and the server under
 * test — `charpipe serve` as a child process with a temporary config (provider mock), or the small
 * fake of `fake-charpipe-server.ts` when `CHARPIPE_WEB_TEST_SERVER=fake` asks for it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'
import { startFakeServer } from './fake-charpipe-server.js'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const chromiumPath = '/usr/bin/chromium'

/** Why the browser tests cannot run here, or undefined when they can. */
export function findBrowserSkipReason(): string | undefined {
  if (existsSync(chromiumPath)) return undefined
  if (process.env.CI === 'true')
    throw new Error(`CI=true but ${chromiumPath} is missing: apt-get install -y chromium`)
  return `browser tests skipped: ${chromiumPath} not found (apt-get install -y chromium)`
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface ServerUnderTest {
  url: string
  configPath: string
  /** Everything the server printed (for failure messages). */
  output(): string
  stop(): Promise<void>
}

export const initialConfigYaml = `# web page test config
llm:
  provider: mock
  temperature: 0.7
character:
  name: 小测
  persona: 一个乐于助人的测试角色。
  injected_history:
    - role: user
      content: 你好
    - role: assistant
      content: 你好呀
history:
  store: memory
`

async function startServeProcess(directory: string, configPath: string): Promise<ServerUnderTest> {
  let output = ''
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/entry.ts', 'serve', '--config', configPath, '--port', '0'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 25 s:\n${output}`)), 25_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = output.match(/listening on (http:\/\/[^\s]+)/)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1].replace(/\/$/, ''))
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with ${code} before listening:\n${output}`))
    })
  })
  return {
    url,
    configPath,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/** Starts the server with a fresh temporary config file. */
export async function startServerUnderTest(): Promise<ServerUnderTest> {
  const directory = await mkdtemp(path.join(tmpdir(), 'charpipe-web-'))
  const configPath = path.join(directory, 'config.yaml')
  await writeFile(
    configPath,
    `${initialConfigYaml}storage:\n  sqlite_path: ${JSON.stringify(path.join(directory, 'charpipe.db'))}\n`,
  )
  if (process.env.CHARPIPE_WEB_TEST_SERVER !== 'fake') return startServeProcess(directory, configPath)
  const fake = await startFakeServer({ configPath, staticDir: path.join(repoRoot, 'dist', 'web') })
  return {
    url: fake.url,
    configPath,
    output: () => '',
    stop: async () => {
      await fake.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}
