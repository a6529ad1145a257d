/**
 * The engine's wiring of preflight (early transcripts, `preflight: true`): a prepared turn runs in
 * its session's lane like any other, queued behind turns that are ending and holding its events
 * until a final input with the same words adopts it. The controller itself is in preflight/.
 */
import { resolveCharacter } from './character-runtime.js'
import type { ClusterLink } from './cluster-link.js'
import type { EngineContext } from './engine-context.js'
import { createEngineTurnOutput, createTurnHandle, launchTurn } from './launch-turn.js'
import {
  createPreflightController,
  type PreflightController,
} from './preflight/create-preflight-controller.js'

export function createEnginePreflight(context: EngineContext, clusterLink: ClusterLink): PreflightController {
  return createPreflightController({
    slots: context.preflightSlots,
    lanes: context.lanes,
    observedLines: context.observedLines,
    readConfig: () => context.current.config,
    resolveInput: (input) => resolveCharacter(context, input),
    launch(input, gate) {
      const handle = createTurnHandle(input.session, true)
      const output = createEngineTurnOutput(context, handle.turn, input.session, undefined)
      // Queued, never interrupting: it starts only behind turns that are already ending.
      launchTurn(context, handle, input, output, 'queue', {}, gate)
      return { handle, isDone: output.isDone, attach: output.attach }
    },
    onAdopted(handle) {
      if (context.cluster && context.current.config.conversation.on_new_input === 'interrupt')
        clusterLink.announceNewInput(handle)
    },
  })
}
