/**
 * The two ways to take a turn's events: `generate`, an async iterable whose early exit interrupts
 * the turn, and `run`, a callback per event for servers relaying many turns, where each promise an
 * iterator adds per event counts. Both start every input the same way (turn/start-turn.ts).
 */
import type { CharpipeEvent } from '../shared/events.js'
import { createEventChannel } from './event-channel.js'
import { abortTurn, type TurnHandle } from './session-lanes.js'
import { startTurn, type TurnStarter } from './turn/start-turn.js'
import type { InterruptReason } from './turn-outcome.js'
import type { Charpipe, GenerateInput, GenerateOptions } from './types.js'

/**
 * An abort whose reason says what was heard (`controller.abort({ heard })`: a client that hung up
 * after part of the reply) is an interrupt with that text: the stored reply is cut there.
 */
function reasonOfAbort(signal: AbortSignal): InterruptReason {
  const heard = (signal.reason as { heard?: unknown } | undefined)?.heard
  return typeof heard === 'string' ? { kind: 'interrupt', heard } : { kind: 'signal' }
}

export function createTurnMethods(starter: TurnStarter): Pick<Charpipe, 'generate' | 'run'> {
  async function* generate(input: GenerateInput, generateOptions: GenerateOptions = {}) {
    const channel = createEventChannel<CharpipeEvent>()
    const { handle, isDone } = startTurn({
      ...starter,
      ...generateOptions,
      input,
      sink: { push: channel.push, close: channel.close },
    })
    const signal = generateOptions.signal
    const onAbort = () => abortTurn(handle, reasonOfAbort(signal!))
    if (signal?.aborted) onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      yield* channel
    } finally {
      signal?.removeEventListener('abort', onAbort)
      // Leaving the loop early interrupts the turn (STYLE.md §5).
      if (!isDone()) abortTurn(handle, { kind: 'consumer' })
    }
  }

  /**
   * `generate` without the iterator: each event is handed to `onEvent` as it happens. A server
   * relaying a thousand turns pays for every promise an iterator layer adds per event.
   */
  function run(
    input: GenerateInput,
    onEvent: (event: CharpipeEvent) => void,
    runOptions: GenerateOptions = {},
  ) {
    return new Promise<void>((resolve, reject) => {
      const signal = runOptions.signal
      let handle: TurnHandle | undefined
      let listenerError: { error: unknown } | undefined
      let finished = false
      const onAbort = () => {
        if (handle) abortTurn(handle, reasonOfAbort(signal!))
      }
      const deliver = (event: CharpipeEvent) => {
        if (listenerError) return
        try {
          onEvent(event)
        } catch (error) {
          // A listener that throws has stopped listening, as a consumer leaving its loop would.
          listenerError = { error }
          if (handle) abortTurn(handle, { kind: 'consumer' })
        }
      }
      const finish = () => {
        finished = true
        signal?.removeEventListener('abort', onAbort)
        if (listenerError) reject(listenerError.error)
        else resolve()
      }
      handle = startTurn({ ...starter, ...runOptions, input, sink: { push: deliver, close: finish } }).handle
      // A turn refused at once (bad input) has already finished here.
      if (finished) return
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  return { generate: (input, generateOptions) => generate(input, generateOptions), run }
}
