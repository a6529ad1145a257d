/**
 * Starts the server on 127.0.0.1:0 with a config file in a fresh temporary folder, the fake
 * Charpipe (or a given factory) and a logger whose lines the test can read. The folder is also the
 * server's data folder: a config that names none gets `characters_dir` there, so nothing in the
 * checkout's `./data` (a card imported on the page) reaches a test.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { AudienceClock } from '../../src/audience/types.js'
import { loadConfig } from '../../src/characters/load-config.js'
import type { CharpipeConfig } from '../../src/config/schema.js'
import type { ConnectorClock } from '../../src/connectors/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { type OwnedCharpipeOptions, type StartServerResult, startServer } from '../../src/server/index.js'
import { createLogger, type Logger, readChosenLogger, setLogger } from '../../src/shared/logger.js'
import { createFakeCharpipe, type FakeCharpipe } from '../../src/testing/create-fake-charpipe.js'

export interface TestServer extends StartServerResult {
  configPath: string
  /** The config file's text as the test server wrote it (empty when it wrote none). */
  configText: string
  folder: string
  /** Every log line the server printed. */
  logLines: string[]
  charpipe: Charpipe
  fake: FakeCharpipe | undefined
  /** Headers with the bearer token, when one is set. */
  headers: Record<string, string>
  stop(): Promise<void>
}

export interface StartTestServerOptions {
  /**
   * config.yaml text (`{folder}` is replaced by the temporary folder). Undefined: a file that holds
   * only the test's own characters folder.
   */
  configText?: string
  /** False: no config file at all (the server runs on the defaults, its characters in `./data`). */
  configFile?: false
  token?: string
  /** Makes the product; pass `owned` on to `createCharpipe` for the turn metrics and gauges in `/metrics`. */
  createCharpipe?: (config: CharpipeConfig, logger: Logger, owned: OwnedCharpipeOptions) => Promise<Charpipe>
  /** Also make the captured logger the process-wide one (every module's lines), until `stop()`. */
  captureAllLogs?: boolean
  chunkDelayMs?: number
  /** The clock the fake Charpipe's turns pace their chunks by (`!slow`, `chunkDelayMs`). */
  clock?: AudienceClock
  memory?: false
  staticDir?: string
  watchConfig?: boolean
  /** Resolves host names for the outbound address check. */
  lookup?: (host: string) => Promise<string[]>
  /** The clock connectors pace their replies by. */
  connectorClock?: ConnectorClock
  /** The clock the HTTP audience origins' minutes are counted by. */
  limitsClock?: { now(): number }
}

/** The config text with a characters folder in the test's folder, unless it names one already. */
export function withOwnDataFolder(configText: string): string {
  if (/^characters_dir:/m.test(configText)) return configText
  const separator = configText === '' || configText.endsWith('\n') ? '' : '\n'
  return `${configText}${separator}characters_dir: {folder}/data/characters\n`
}

export async function startTestServer(options: StartTestServerOptions = {}): Promise<TestServer> {
  const folder = await mkdtemp(join(tmpdir(), 'charpipe-server-'))
  const configPath = join(folder, 'config.yaml')
  await mkdir(join(folder, 'data', 'characters'), { recursive: true })
  const configText =
    options.configFile === false
      ? ''
      : withOwnDataFolder(options.configText ?? '').replaceAll('{folder}', folder)
  if (options.configFile !== false) await writeFile(configPath, configText)
  const logLines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean))
      callback()
    },
  })
  const logger = createLogger({ level: 'debug', destination })
  const previousLogger = readChosenLogger()
  if (options.captureAllLogs) setLogger(logger)
  const { config, warnings } = await loadConfig(configPath, { logger })
  let fake: FakeCharpipe | undefined
  const factory = options.createCharpipe
    ? (initial: CharpipeConfig, owned: OwnedCharpipeOptions) =>
        options.createCharpipe!(initial, logger, owned)
    : async (initial: CharpipeConfig, { observers }: OwnedCharpipeOptions) => {
        fake = createFakeCharpipe({
          config: initial,
          chunkDelayMs: options.chunkDelayMs,
          clock: options.clock,
          memory: options.memory,
          observers,
        })
        return fake
      }
  const started = await startServer({
    configPath,
    config,
    configWarnings: warnings,
    createCharpipe: factory,
    logger,
    host: '127.0.0.1',
    port: 0,
    staticDir: options.staticDir ?? join(folder, 'web'),
    watchConfig: options.watchConfig,
    lookup: options.lookup,
    connectorClock: options.connectorClock,
    limitsClock: options.limitsClock,
  })
  const token = options.token ?? config.server.token
  return {
    ...started,
    configPath,
    configText,
    folder,
    logLines,
    charpipe: started.server.charpipe,
    fake,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    async stop() {
      await started.close()
      if (options.captureAllLogs) setLogger(previousLogger)
      await rm(folder, { recursive: true, force: true })
    },
  }
}

/**
 * The server over the real engine (`createCharpipe`), its model the mock model server at `modelUrl`
 * (provider `custom`, no retries), history in SQLite in the test's folder. `extraYaml` lines are
 * appended to the config file (other sections, such as `character:` or `conversation:`).
 */
export async function startServerOverModel(modelUrl: string, extraYaml: string[] = []): Promise<TestServer> {
  const { createCharpipe } = await import('../../src/engine/index.js')
  return startTestServer({
    configText: [
      'llm:',
      '  provider: custom',
      `  base_url: ${modelUrl}/v1`,
      '  model: mock-model',
      '  max_retries: 0',
      'storage:',
      `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
      ...extraYaml,
    ].join('\n'),
    createCharpipe: (config, logger, owned) => createCharpipe(config, { logger, ...owned }),
  })
}
