/**
 * The two ways to take a turn's events: `generate`, an async iterable whose early exit interrupts
 * the turn, and `run`, a callback per event for servers relaying many turns, where each promise an
 * iterator adds per event counts. Both start every input the same way (turn/start-turn.ts).
 */
import { BadRequestError } from '../shared/errors.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createEventChannel } from './event-channel.js'
import { abortTurn, type TurnHandle } from './session-lanes.js'
import type { StartedTurn } from './started-turn.js'
import { startTurn, type TurnStarter } from './turn/start-turn.js'
import type { InterruptReason } from './turn-outcome.js'
import type { Charpipe, GenerateInput, GenerateOptions, RunOptions } from './types.js'

/**
 * An abort whose reason says what was heard (`controller.abort({ heard })`: a client that hung up
 * after part of the reply) is an interrupt with that text: the stored reply is cut there.
 */
function reasonOfAbort(signal: AbortSignal): InterruptReason {
  const heard = (signal.reason as { heard?: unknown } | undefined)?.heard
  return typeof heard === 'string' ? { kind: 'interrupt', heard } : { kind: 'signal' }
}

export function createTurnMethods(starter: TurnStarter): Pick<Charpipe, 'generate' | 'run'> {
  /**
   * Written out rather than as an async generator around the channel: a `yield*` adds promises
   * and microtasks to every event. As with a generator, the turn starts at the first `next()`, and
   * `return()` (leaving the loop early) interrupts it. The end is handed out once the turn has
   * left its session's lane, so a caller's next input after the loop never queues behind it.
   */
  function generate(
    input: GenerateInput,
    generateOptions: GenerateOptions = {},
  ): AsyncIterableIterator<CharpipeEvent> {
    const signal = generateOptions.signal
    let events: AsyncIterator<CharpipeEvent> | undefined
    let started: StartedTurn | undefined
    let finished = false
    const onAbort = () => {
      if (started) abortTurn(started.handle, reasonOfAbort(signal!))
    }
    const start = (): AsyncIterator<CharpipeEvent> => {
      const channel = createEventChannel<CharpipeEvent>()
      const closeAfterLane = () => {
        // Deferred: a refused input closes inside startTurn, before its handle is known here.
        queueMicrotask(() => {
          const end = () => {
            signal?.removeEventListener('abort', onAbort)
            channel.close()
          }
          const ended = started?.handle.ended
          if (ended) void ended.then(end, end)
          else end()
        })
      }
      started = startTurn({
        ...starter,
        ...generateOptions,
        input,
        sink: { push: channel.push, close: closeAfterLane },
      })
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
      return channel[Symbol.asyncIterator]()
    }
    const finish = () => {
      if (finished) return
      finished = true
      signal?.removeEventListener('abort', onAbort)
      // Leaving the loop early interrupts the turn (STYLE.md §5).
      if (started && !started.isDone()) abortTurn(started.handle, { kind: 'consumer' })
    }
    const iterator: AsyncIterableIterator<CharpipeEvent> = {
      next() {
        if (finished) return Promise.resolve({ value: undefined, done: true })
        events ??= start()
        return events.next()
      },
      return() {
        finish()
        void events?.return?.()
        return Promise.resolve({ value: undefined, done: true })
      },
      [Symbol.asyncIterator]() {
        return iterator
      },
    }
    return iterator
  }

  /**
   * `generate` without the iterator: each event is handed to `onEvent` as it happens. A server
   * relaying a thousand turns pays for every promise an iterator layer adds per event.
   */
  function run(input: GenerateInput, options: RunOptions) {
    if (typeof options?.onEvent !== 'function') {
      return Promise.reject(new BadRequestError('run needs onEvent, a function: run(input, { onEvent })'))
    }
    const { onEvent, ...runOptions } = options
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
