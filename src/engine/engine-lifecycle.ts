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
  if (context.state.mcp) {
    context.state.mcp.reconfigure(servers)
    return
  }
  if (Object.keys(servers).length === 0) return
  const { createMcpToolSource } = await import('../tools/mcp/create-mcp-tool-source.js')
  context.state.mcp = createMcpToolSource({
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
  const runtime = context.state.current
  // Throws for a character a reload removed, before the runtime is counted.
  const view = characterRuntimeOf(context, runtime, character)
  runtime.activeTurns++
  return view
}

export function releaseTurnRuntime(context: EngineContext, view: EngineRuntime): void {
  // A character's view counts its turns on the runtime it was made from.
  const runtime = view.base ?? view
  runtime.activeTurns--
  if (runtime.activeTurns === 0 && context.retired.takeOut(runtime)) {
    void releaseRuntimeParts(runtime, context.state.current, context.owned, context.logger)
  }
}

export function reloadEngine(context: EngineContext, config: CharpipeConfig): Promise<void> {
  const { injected, parts, logger, owned } = context
  const next = context.state.reloading.then(async () => {
    if (context.state.closed) throw new BadRequestError('this charpipe instance is closed')
    const parsed = parseConfig(config, { source: 'reload', logger, checks: [checkPipelineConfig] }).config
    const previous = context.state.current
    context.state.current = await createEngineRuntime({
      ...injected,
      config: parsed,
      parts,
      logger,
      previous,
      slices: context.slices,
    })
    await configureMcp(context, parsed.tools.mcp_servers)
    if (previous.activeTurns === 0) await releaseRuntimeParts(previous, context.state.current, owned, logger)
    else context.retired.retire(previous)
    logger.info('config reloaded; applies from the next turn')
  })
  context.state.reloading = next.catch(() => {})
  return next
}

export async function closeEngine(context: EngineContext): Promise<void> {
  if (context.state.closed) return
  context.state.closed = true
  context.state.audience?.close()
  const { lanes, retired, owned, logger } = context
  await context.state.reloading
  const handles = lanes.all()
  for (const handle of handles) abortTurn(handle, { kind: 'close' })
  await Promise.all(handles.map((handle) => handle.ended))
  // Fact extractions of finished turns complete (each within memory.extract_timeout_ms).
  await context.background.drain()
  for (const runtime of retired.takeAll())
    await releaseRuntimeParts(runtime, context.state.current, owned, logger)
  await releaseRuntimeParts(context.state.current, undefined, owned, logger)
  await context.state.mcp?.close()
  if (context.ownsCluster) await context.cluster?.close()
}
