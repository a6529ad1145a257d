/**
 * The engine's wiring of preflight (early transcripts, `preflight: true`): a prepared turn runs in
 * its session's lane like any other (turn/run-turn.ts), queued behind turns that are ending and
 * holding its events on its gate until a final input with the same words adopts it.
 */
import { resolveCharacter } from '../character-runtime.js'
import type { ClusterLink } from '../cluster-link.js'
import type { EngineContext } from '../engine-context.js'
import type { ObservedLines } from '../observed-lines.js'
import { createTurnHandle } from '../session-lanes.js'
import { runTurn } from '../turn/run-turn.js'
import { createEngineTurnOutput } from '../turn/start-turn.js'
import { createPreflightController, type PreflightController } from './create-preflight-controller.js'
import { createPreflightSlots } from './create-preflight-slots.js'

export interface CreateEnginePreflightOptions {
  context: EngineContext
  clusterLink: ClusterLink
  /** The session's observed lines, looked at (not taken) to render an early transcript. */
  observedLines: ObservedLines
}

export function createEnginePreflight(options: CreateEnginePreflightOptions): PreflightController {
  const { context, clusterLink } = options
  return createPreflightController({
    slots: createPreflightSlots(context.clock),
    clock: context.clock,
    lanes: context.lanes,
    observedLines: options.observedLines,
    readConfig: () => context.current.config,
    resolveInput: (input) => resolveCharacter(context, input),
    launch(input, gate) {
      const handle = createTurnHandle(input.session, true)
      const output = createEngineTurnOutput(context, handle.turn, input.session, undefined)
      // Queued, never interrupting: it starts only behind turns that are already ending.
      runTurn({ engine: context, handle, input, output, mode: 'queue', preflight: gate })
      return { handle, isDone: output.isDone, attach: output.attach }
    },
    onAdopted(handle) {
      if (context.cluster && context.current.config.conversation.on_new_input === 'interrupt')
        clusterLink.announceNewInput(handle)
    },
  })
}
