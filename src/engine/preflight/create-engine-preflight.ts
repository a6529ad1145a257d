/**
 * The engine's wiring of preflight (early transcripts, `preflight: true`): a prepared turn runs in
 * its session's lane like any other, started withheld (`launch`), queued behind turns that are
 * ending, until a final input with the same words grants it.
 */
import { resolveCharacter } from '../character-runtime.js'
import type { ClusterLink } from '../cluster-link.js'
import type { EngineContext } from '../engine-context.js'
import type { ObservedLines } from '../observed-lines.js'
import type { StartWithheldTurn } from '../started-turn.js'
import type { RegisterGauge } from '../types.js'
import { createPreflightController, type PreflightController } from './create-preflight-controller.js'
import { createPreflightSlots } from './create-preflight-slots.js'
import { describePreflightGauges } from './describe-preflight-gauges.js'

export interface CreateEnginePreflightOptions {
  context: EngineContext
  clusterLink: ClusterLink
  /** The session's observed lines, looked at (not taken) to render an early transcript. */
  observedLines: ObservedLines
  /** Starts a turn withheld in its session's lane (turn/start-turn.ts's `startWithheldTurn`). */
  launch: StartWithheldTurn
  /** Takes the preflight gauges (`createCharpipe`'s `registerGauge`); absent: they are only read. */
  registerGauge?: RegisterGauge
}

export function createEnginePreflight(options: CreateEnginePreflightOptions): PreflightController {
  const { context, clusterLink } = options
  const controller = createPreflightController({
    slots: createPreflightSlots(context.clock),
    lanes: context.lanes,
    observedLines: options.observedLines,
    readConfig: () => context.state.current.config,
    resolveInput: (input) => resolveCharacter(context, input),
    launch: options.launch,
    onAdopted(handle) {
      if (context.cluster && context.state.current.config.conversation.on_new_input === 'interrupt')
        clusterLink.announceNewInput(handle)
    },
  })
  if (options.registerGauge)
    for (const gauge of describePreflightGauges(() => controller.stats())) options.registerGauge(gauge)
  return controller
}
