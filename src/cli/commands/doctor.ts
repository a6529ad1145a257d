/**
 * `charpipe doctor [--config FILE]`: is this setup healthy? One verdict line per check — the config
 * is valid, the provider answers HTTP at its address, the model answers a tiny prompt — each `ok` or
 * `FAIL` with the reason; each MCP server of `tools.mcp_servers` is connected and its tools listed;
 * each connector (OneBot, Twitch, Bilibili) is reached and logged in.
 * Exits 0 only when every check passes.
 */
import { parseArgs } from 'node:util'
import { lookupProvider, resolveProviderSettings } from '../../config/provider-registry.js'
import type { CharpipeConfig } from '../../config/schema.js'
import { createProviderFromConfig } from '../../providers/index.js'
import { CharpipeError } from '../../shared/errors.js'
import { createLogger } from '../../shared/logger.js'
import { DEFAULT_CONFIG_PATH, formatWarnings, loadCliConfig, runCommand } from '../load-cli-config.js'

export const summary = 'Check the config, reach the provider and ask the model a tiny question'
export const usage = 'charpipe doctor [--config FILE]'

interface CheckResult {
  ok: boolean
  detail: string
}

/** Longest wait for one check; a healthy provider answers a one-word prompt well within it. */
const checkTimeoutMs = 30_000

function printVerdict(name: string, result: CheckResult): void {
  console.log(`${result.ok ? 'ok  ' : 'FAIL'} ${name}: ${result.detail}`)
}

function providerAddress(config: CharpipeConfig): string {
  if (lookupProvider(config.llm.provider).apiType === 'openclaw') return config.openclaw.url
  return resolveProviderSettings(config.llm).baseUrl
}

async function checkReachable(config: CharpipeConfig): Promise<CheckResult> {
  if (lookupProvider(config.llm.provider).apiType === 'mock')
    return { ok: true, detail: 'builtin mock (in process)' }
  const address = providerAddress(config)
  if (!address)
    return { ok: false, detail: `llm.base_url is empty and ${config.llm.provider} has no default` }
  try {
    const response = await fetch(address, {
      signal: AbortSignal.timeout(Math.min(config.llm.timeout_ms, 10_000)),
    })
    await response.body?.cancel()
    return { ok: true, detail: `${address} answers (HTTP ${response.status})` }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    return { ok: false, detail: `cannot reach ${address} (${cause})` }
  }
}

function explainFailure(config: CharpipeConfig, error: unknown): string {
  if (!CharpipeError.isInstance(error)) return (error as Error).message
  const openclaw = lookupProvider(config.llm.provider).apiType === 'openclaw'
  if (error.status === 404 && openclaw) {
    return 'HTTP 404: the gateway has its chatCompletions endpoint off; set gateway.http.endpoints.chatCompletions.enabled: true in the OpenClaw config'
  }
  if (error.status === 401 || error.status === 403)
    return `HTTP ${error.status}: the API key or token was refused`
  if (error.status === 404) return `HTTP 404: check llm.base_url and llm.model (${error.message})`
  return `${error.code}: ${error.message}`
}

async function checkModelAnswers(config: CharpipeConfig): Promise<CheckResult> {
  // One attempt, no fallbacks: the doctor reports on the configured provider itself.
  const single: CharpipeConfig = { ...config, llm: { ...config.llm, max_retries: 0, fallbacks: [] } }
  const provider = createProviderFromConfig(single, { logger: createLogger({ level: 'silent' }) })
  const signal = AbortSignal.timeout(Math.min(config.llm.timeout_ms, checkTimeoutMs))
  let text = ''
  try {
    const stream = provider.streamChat(
      { messages: [{ role: 'user', content: 'Reply with one word: ok' }], maxTokens: 16 },
      { signal },
    )
    for await (const event of stream) if (event.type === 'text-delta') text += event.text
  } catch (error) {
    if (signal.aborted) return { ok: false, detail: `no answer within ${checkTimeoutMs / 1000} s` }
    return { ok: false, detail: explainFailure(config, error) }
  }
  const shown = text.trim().replace(/\s+/g, ' ').slice(0, 60)
  return { ok: true, detail: `${provider.name}/${provider.model} answered${shown ? ` "${shown}"` : ''}` }
}

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    let values: { config?: string }
    try {
      values = parseArgs({ args, options: { config: { type: 'string' } } }).values as typeof values
    } catch (error) {
      console.error(`charpipe doctor: ${(error as Error).message}\nusage: ${usage}`)
      return 2
    }
    let config: CharpipeConfig
    try {
      const loaded = await loadCliConfig(values.config, { printWarnings: false })
      config = loaded.config
      const detail = loaded.fromFile
        ? `${loaded.path} is valid`
        : `${loaded.path} not found: the defaults are used (builtin ${config.llm.provider} provider)`
      printVerdict('config', { ok: true, detail })
      for (const line of formatWarnings(loaded.warnings)) console.log(`     ${line}`)
    } catch {
      const named = values.config ?? DEFAULT_CONFIG_PATH
      printVerdict('config', { ok: false, detail: `${named} cannot be used (see above)` })
      return 1
    }
    const reachable = await checkReachable(config)
    printVerdict('provider reachable', reachable)
    const answers = reachable.ok
      ? await checkModelAnswers(config)
      : { ok: false, detail: 'skipped: the provider cannot be reached' }
    printVerdict('model answers', answers)
    let serversOk = true
    const servers = Object.entries(config.tools.mcp_servers)
    if (servers.length > 0) {
      const { checkMcpServer } = await import('../../tools/mcp/check-mcp-server.js')
      for (const [name, server] of servers) {
        const result = await checkMcpServer(name, server)
        serversOk &&= result.ok
        const detail = result.ok
          ? `${result.tools.length} tools: ${result.tools.join(', ') || '(none)'}`
          : `cannot connect (${result.error})`
        printVerdict(`MCP server ${name}`, { ok: result.ok, detail })
      }
    }
    const { checkConnectors } = await import('../../connectors/check-connectors.js')
    const connectorChecks = await checkConnectors(config)
    for (const check of connectorChecks) printVerdict(check.name, check)
    const connectorsOk = connectorChecks.every((check) => check.ok)
    const healthy = reachable.ok && answers.ok && serversOk && connectorsOk
    console.log(healthy ? 'healthy' : 'unhealthy')
    return healthy ? 0 : 1
  })
}
