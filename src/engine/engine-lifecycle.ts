/**
 * What changes the engine as a whole: connecting the MCP servers, `reload` (a new runtime for the
 * next turns, the old one released once its turns end: turns take and give back runtimes here) and `close` (every turn stopped, background
 * work drained, then the stores and connections this instance opened closed).
 */
import { parseConfig } from '../characters/load-config.js'
import type { CharpipeConfig } from '../config/schema.js'
import { checkPipelineConfig } from '../context/check-pipeline-config.js'
import { BadRequestError } from '../shared/errors.js'
import { characterRuntimeOf } from './character-runtime.js'
import type { EngineContext } from './engine-context.js'
import { createEngineRuntime, type EngineRuntime, releaseRuntimeParts } from './engine-runtime.js'
import { abortTurn } from './session-lanes.js'

/** MCP servers connect in the background; the module (and the SDK) load only when one is configured. */
export async function configureMcp(
  context: EngineContext,
  servers: CharpipeConfig['tools']['mcp_servers'],
): Promise<void> {
  if (context.mcp) {
    context.mcp.reconfigure(servers)
    return
  }
  if (Object.keys(servers).length === 0) return
  const { createMcpToolSource } = await import('../tools/mcp/create-mcp-tool-source.js')
  context.mcp = createMcpToolSource({
    servers,
    logger: context.logger,
    reservedNames: new Set(context.registry.list().map((tool) => tool.name)),
  })
}

/**
 * A turn takes the runtime current when it starts (its character's view of it) and holds it to its
 * end: a reload meanwhile retires the old runtime, released here when its last turn gives it back.
 */
export function acquireTurnRuntime(context: EngineContext, character: string | undefined): EngineRuntime {
  const runtime = context.current
  // Throws for a character a reload removed, before the runtime is counted.
  const view = characterRuntimeOf(context, runtime, character)
  runtime.activeTurns++
  return view
}

export function releaseTurnRuntime(context: EngineContext, view: EngineRuntime): void {
  // A character's view counts its turns on the runtime it was made from.
  const runtime = view.base ?? view
  runtime.activeTurns--
  if (runtime.activeTurns === 0 && context.retired.delete(runtime)) {
    void releaseRuntimeParts(runtime, context.current, context.owned, context.logger)
  }
}

export function reloadEngine(context: EngineContext, config: CharpipeConfig): Promise<void> {
  const { injected, parts, logger, owned } = context
  const next = context.reloading.then(async () => {
    if (context.closed) throw new BadRequestError('this charpipe instance is closed')
    const parsed = parseConfig(config, { source: 'reload', logger, checks: [checkPipelineConfig] }).config
    const previous = context.current
    context.current = await createEngineRuntime({ ...injected, config: parsed, parts, logger, previous })
    await configureMcp(context, parsed.tools.mcp_servers)
    if (previous.activeTurns === 0) await releaseRuntimeParts(previous, context.current, owned, logger)
    else context.retired.add(previous)
    logger.info('config reloaded; applies from the next turn')
  })
  context.reloading = next.catch(() => {})
  return next
}

export async function closeEngine(context: EngineContext): Promise<void> {
  if (context.closed) return
  context.closed = true
  context.audience?.close()
  const { lanes, retired, owned, logger } = context
  await context.reloading
  const handles = lanes.all()
  for (const handle of handles) abortTurn(handle, { kind: 'close' })
  await Promise.all(handles.map((handle) => handle.ended))
  // Fact extractions of finished turns complete (each within memory.extract_timeout_ms).
  await context.background.drain()
  for (const runtime of retired) await releaseRuntimeParts(runtime, context.current, owned, logger)
  retired.clear()
  await releaseRuntimeParts(context.current, undefined, owned, logger)
  await context.mcp?.close()
  if (context.ownsCluster) await context.cluster?.close()
}
