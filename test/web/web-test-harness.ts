/**
 * What the browser tests share: Debian's chromium driven by playwright-core, and the server under
 * test — `charpipe serve` as a child process (the CLI bundled for the run) with a temporary config whose model is the mock model
 * server of `charpipe/testing` (OpenAI-compatible, scripted here: a short reply, or a long slow one
 * to interrupt when the user asks for a long story).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core'
import { type MockReply, startMockModelServer } from '../../src/testing/index.js'
import { cliArguments } from '../support/cli-command.js'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const chromiumPath = '/usr/bin/chromium'

/** Why the browser tests cannot run here, or undefined when they can. */
export function findBrowserSkipReason(): string | undefined {
  if (existsSync(chromiumPath)) return undefined
  if (process.env.CI === 'true')
    throw new Error(`CI=true but ${chromiumPath} is missing: apt-get install -y chromium`)
  return `browser tests skipped: ${chromiumPath} not found (apt-get install -y chromium)`
}

/** `extraArgs`: more command-line switches (e.g. `--host-resolver-rules` to play DNS rebinding). */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
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
      ...extraArgs,
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

/** The words that make the mock model answer with a long, slow reply. */
export const longReplyTrigger = '讲一个长故事'
export const longReplyText = '从前有一座山，山里有一座庙。'.repeat(40)
/** The words that make the mock model refuse the key (HTTP 401) or not know the model (HTTP 404). */
export const keyRefusedTrigger = '用错误的密钥'
export const modelMissingTrigger = '用不存在的模型'
/** Words the mock model answers with silence, and with an inner thought before its line. */
export const silenceTrigger = '你先别说话'
export const thoughtTrigger = '你在想什么'
export const thoughtText = '他是在试探我吗？'
export const thoughtReplyText = '我在想晚饭吃什么。'
/** An English greeting answered by the mock's own default reply (in English, its emotion from the words). */
export const englishGreeting = 'Hello, nice to meet you!'

function readLastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? []
  const last = messages.filter((message) => message.role === 'user').at(-1)
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '')
}

/** The trigger said last: a user line that got no reply may be merged into the next one. */
function findLastTrigger(text: string): string | undefined {
  const triggers = [keyRefusedTrigger, modelMissingTrigger, longReplyTrigger, silenceTrigger, thoughtTrigger]
  let found: string | undefined
  let foundAt = -1
  for (const trigger of triggers) {
    const at = text.lastIndexOf(trigger)
    if (at > foundAt) {
      found = trigger
      foundAt = at
    }
  }
  return found
}

function composeReply(body: unknown): MockReply {
  if (readLastUserText(body).includes(englishGreeting)) return {}
  const trigger = findLastTrigger(readLastUserText(body))
  if (trigger === keyRefusedTrigger) {
    return {
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    }
  }
  if (trigger === modelMissingTrigger) {
    return {
      status: 404,
      body: {
        error: { message: 'The model `mock-character` does not exist', type: 'invalid_request_error' },
      },
    }
  }
  if (trigger === silenceTrigger) return { text: JSON.stringify({ emotion: '平静', text: '[silence]' }) }
  if (trigger === thoughtTrigger) {
    const reply = { thought: thoughtText, emotion: '开心', text: thoughtReplyText }
    return { text: JSON.stringify(reply), chunkSize: 3, delayMs: 10 }
  }
  if (trigger === longReplyTrigger) {
    return { text: JSON.stringify({ emotion: '开心', text: longReplyText }), chunkSize: 2, delayMs: 40 }
  }
  return {
    text: JSON.stringify({ emotion: '开心', text: '你好呀！我是小测。今天过得怎么样？' }),
    chunkSize: 2,
    delayMs: 10,
  }
}

function buildConfigYaml(options: {
  modelUrl: string
  sqlitePath: string
  token?: string
  withCharacter?: boolean
  extraYaml?: string
}): string {
  const config = `# web page test config
${options.token ? `server:\n  token: ${JSON.stringify(options.token)}\n` : ''}llm:
  provider: mock-model
  base_url: ${options.modelUrl}/v1
  model: mock-character
  temperature: 0.7
storage:
  sqlite_path: ${JSON.stringify(options.sqlitePath)}
`
  const character = options.withCharacter === false ? '' : testCharacterYaml
  return `${config}${character}${options.extraYaml ?? ''}`
}

const testCharacterYaml = `character:
  name: 小测
  persona: 一个乐于助人的测试角色。
  injected_history:
    - role: user
      content: 你好
    - role: assistant
      content: 你好呀
`

async function startServeProcess(
  directory: string,
  configPath: string,
  onStop: () => Promise<void>,
  environment: Record<string, string | undefined> = {},
): Promise<ServerUnderTest> {
  let output = ''
  // The server finds its page by walking up from its own file to a package.json. The CLI bundled for
  // the run lies under node_modules; where that is a link to another checkout's, its real path would
  // lead to that checkout's page, not the one just built from these sources.
  const child: ChildProcess = spawn(
    process.execPath,
    ['--preserve-symlinks-main', ...cliArguments(['serve', '--config', configPath, '--port', '0'])],
    { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...environment } },
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
      await onStop()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

export interface StartServerUnderTestOptions {
  token?: string
  /** Top-level config text appended to the file (not `server:` together with `token`). */
  extraYaml?: string
  /** False: the config names no character (the machine's locale chooses the default one). */
  withCharacter?: boolean
  /** Environment variables of the server process over the test's (e.g. its locale). */
  environment?: Record<string, string | undefined>
}

/** Starts the mock model and `charpipe serve` with a fresh temporary config file. */
export async function startServerUnderTest(
  options: StartServerUnderTestOptions = {},
): Promise<ServerUnderTest> {
  const directory = await mkdtemp(path.join(tmpdir(), 'charpipe-web-'))
  const configPath = path.join(directory, 'config.yaml')
  const model = await startMockModelServer({ respond: (request) => composeReply(request.body) })
  await writeFile(
    configPath,
    buildConfigYaml({
      modelUrl: model.url,
      sqlitePath: path.join(directory, 'charpipe.db'),
      token: options.token,
      withCharacter: options.withCharacter,
      extraYaml: options.extraYaml,
    }),
  )
  try {
    return await startServeProcess(directory, configPath, () => model.close(), options.environment)
  } catch (error) {
    await model.close()
    await rm(directory, { recursive: true, force: true })
    throw error
  }
}

export interface BrowserTest {
  server: ServerUnderTest
  browser: Browser
  /** Closes the browser, then stops the server. */
  stop(): Promise<void>
}

/** Starts the server under test and launches the browser (`browserArgs`: see launchBrowser); the page is built once per run (test/support/build-test-web.ts). */
export async function startBrowserTest(
  options: StartServerUnderTestOptions & { browserArgs?: string[] } = {},
): Promise<BrowserTest> {
  const { browserArgs: _browserArgs, ...serverOptions } = options
  const server = await startServerUnderTest(serverOptions)
  let browser: Browser
  try {
    browser = await launchBrowser(options.browserArgs)
  } catch (error) {
    await server.stop()
    throw error
  }
  return {
    server,
    browser,
    stop: async () => {
      await browser.close()
      await server.stop()
    },
  }
}

/** Waits bounded (a loaded machine runs a browser slowly), and errors thrown in the page go to the test's output. */
export function watchPage(page: Page): Page {
  page.setDefaultTimeout(20_000)
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`))
  return page
}

/** A new page at desktop size in a Chinese browser (the page then speaks Chinese, as most checks expect). */
export async function openTestPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  return watchPage(
    await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN', ...options }),
  )
}
