/**
 * `charpipe serve [--config FILE] [--host H] [--port N]`: the HTTP and WebSocket server. Prints one
 * `listening on http://HOST:PORT` line when ready; SIGTERM/SIGINT stop accepting, end running turns
 * (stored as interrupted), close the stores and exit 0.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { ConfigCheck, LoadConfigResult } from '../../characters/load-config.js'
import { resolveProviderSettings } from '../../config/provider-registry.js'
import { checkPipelineConfig } from '../../context/index.js'
import { createCharpipe } from '../../engine/index.js'
import { isLoopbackHost, startServer } from '../../server/index.js'
import { getLogger } from '../../shared/logger.js'
import { loadCliConfig, runCommand } from '../load-cli-config.js'
import {
  needsServeNodeFlags,
  relaunchWithServeNodeFlags,
  tellLauncherStopping,
  watchLauncher,
} from '../relaunch-with-node-flags.js'

export const summary = 'Run the HTTP/WebSocket server (chat, OpenAI-compatible API, admin API, web page)'
export const usage = 'charpipe serve [--config FILE] [--host H] [--port N]'

function readPort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be a whole number from 0 to 65535, got "${text}"`)
  }
  return port
}

/**
 * What a newcomer needs to know before the first request: which file was read (or that none was and
 * where a save from the page will go), and which provider and model answer.
 */
export function describeStartup(loaded: LoadConfigResult): string {
  const { llm } = loaded.config
  const model = resolveProviderSettings(llm).model || "(the provider's default)"
  if (loaded.fromFile) return `charpipe config ${loaded.path} · provider ${llm.provider} · model ${model}`
  return (
    `charpipe config ${loaded.path} not found: running on the defaults with the builtin ${llm.provider} provider (model ${model}); ` +
    `saves from the page will create ${resolve(loaded.path)}`
  )
}

export async function run(args: string[]): Promise<number> {
  // The launcher has nothing left to do once its server is gone: it exits at once, its stop-signal
  // handlers still in place, so a late copy of Ctrl-C cannot kill it while Node tears it down.
  if (needsServeNodeFlags()) process.exit(await relaunchWithServeNodeFlags())
  return runCommand(async () => {
    let values: { config?: string; host?: string; port?: string }
    let port: number | undefined
    try {
      values = parseArgs({
        args,
        options: {
          config: { type: 'string' },
          host: { type: 'string' },
          port: { type: 'string' },
        },
      }).values as typeof values
      port = readPort(values.port)
    } catch (error) {
      console.error(`charpipe serve: ${(error as Error).message}\nusage: ${usage}`)
      return 2
    }
    // The engine logs the config's warnings when it reads the config: printed once, by it.
    const loaded = await loadCliConfig(values.config, { printWarnings: false })
    const host = values.host ?? loaded.config.server.host
    if (!isLoopbackHost(host) && !loaded.config.server.token) {
      console.error(
        `charpipe serve: refusing to listen on ${host} without a token: anyone who can reach it could use the API. ` +
          'Set server.token in the config (it may read the environment: token: "$' +
          '{CHARPIPE_TOKEN}"), or listen on 127.0.0.1.',
      )
      return 2
    }
    // On an open interface the token may not be removed through the admin API either.
    const keepToken: ConfigCheck = (config) =>
      isLoopbackHost(host) || config.server.token
        ? []
        : [{ path: 'server.token', message: `required while the server listens on ${host}` }]
    const logger = getLogger('server')
    let started: Awaited<ReturnType<typeof startServer>>
    try {
      started = await startServer({
        configPath: loaded.path,
        config: loaded.config,
        configWarnings: loaded.warnings,
        createCharpipe: (config, owned) => createCharpipe(config, { logger: getLogger('engine'), ...owned }),
        configChecks: [checkPipelineConfig, keepToken],
        logger,
        host,
        port: port ?? loaded.config.server.port,
      })
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
          ? 'the port is in use'
          : (error as Error).message
      console.error(`charpipe serve: cannot start on ${host}:${port ?? loaded.config.server.port}: ${reason}`)
      return 1
    }
    const graceMs = loaded.config.server.shutdown_grace_ms
    // The stop signals are handled before the listening line is printed: whoever waits for that line
    // (a supervisor, a test) may signal at once, and an unhandled SIGINT would kill the server
    // without its shutdown.
    let stopping = false
    let stopped!: () => void
    const done = new Promise<void>((resolve) => {
      stopped = resolve
    })
    const stop = (signal: string) => {
      // Ctrl-C reaches every process of the terminal's group, and a supervisor may signal again:
      // a second signal must not cut the shutdown short (running turns are still being stored).
      if (stopping) return logger.info({ signal }, 'already shutting down')
      stopping = true
      tellLauncherStopping()
      logger.info({ signal }, 'shutting down')
      // Turns end and stores close within their own deadlines; this is the bound on the whole.
      setTimeout(() => {
        logger.error(
          { graceMs, sessions: started.server.charpipe.sessions.active() },
          'shutdown grace passed: exiting with these sessions unfinished (their last turn may not be stored)',
        )
        process.exit(1)
      }, graceMs).unref()
      started.close().then(stopped, (error: unknown) => {
        logger.error({ err: error }, 'shutdown did not finish cleanly')
        stopped()
      })
    }
    process.on('SIGTERM', () => stop('SIGTERM'))
    process.on('SIGINT', () => stop('SIGINT'))
    watchLauncher(() => stop('launcher gone'))
    console.log(describeStartup(loaded))
    console.log(`charpipe listening on ${started.url}`)
    await done
    // A store connection abandoned past its deadline may still hold the event loop: do not wait on it.
    setTimeout(() => process.exit(0), 1000).unref()
    return 0
  })
}
