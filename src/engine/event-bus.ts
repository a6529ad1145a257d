/**
 * The event bus: every turn's events go to subscribers as well as to the turn's own iterator, for
 * integrators that wire the character like the seeds do (`bus.on(LLM_SENTENCE, speak)`). The seeds'
 * upper-case names are accepted as aliases. A listener that throws is logged and never breaks a turn.
 */

import {
  type CharpipeEvent,
  type CharpipeEventType,
  legacyEventNames,
  type TurnNotStoredEvent,
} from '../shared/events.js'
import type { Logger } from '../shared/logger.js'
import { lookUpOwn } from '../shared/look-up-own.js'

// biome-ignore lint/suspicious/noExplicitAny: listeners of different event types share one map
type AnyListener = (event: any) => void

const eventTypes = new Set<string>([
  'greeting',
  'llm_chunk',
  'llm_emotion',
  'llm_thought',
  'llm_sentence',
  'tool_call',
  'tool_result',
  'llm_error',
  'llm_done',
  'turn_not_stored',
])

export interface EventBus {
  on(type: string, listener: AnyListener): () => void
  off(type: string, listener: AnyListener): void
  emit(event: CharpipeEvent | TurnNotStoredEvent): void
}

/** `LLM_SENTENCE` → `llm_sentence`; `*` subscribes to every event; anything else is an error. */
function resolveEventName(name: string): CharpipeEventType | 'turn_not_stored' | '*' {
  if (name === '*' || eventTypes.has(name)) return name as CharpipeEventType | '*'
  // Own keys only: `toString` is an unknown name, not Object.prototype's function.
  const legacy = lookUpOwn(legacyEventNames as Record<string, CharpipeEventType>, name)
  if (legacy) return legacy
  const known = [...eventTypes, ...Object.keys(legacyEventNames), '*'].join(', ')
  throw new TypeError(`unknown event name ${JSON.stringify(name)}; use one of ${known}`)
}

export function createEventBus(logger: Logger): EventBus {
  const listeners = new Map<string, Set<AnyListener>>()

  const call = (listener: AnyListener, event: CharpipeEvent | TurnNotStoredEvent) => {
    try {
      listener(event)
    } catch (error) {
      logger.error({ err: error, event: event.type }, 'an event listener threw; the turn goes on')
    }
  }

  return {
    on(type, listener) {
      const name = resolveEventName(type)
      let set = listeners.get(name)
      if (!set) {
        set = new Set()
        listeners.set(name, set)
      }
      set.add(listener)
      return () => set.delete(listener)
    },
    off(type, listener) {
      listeners.get(resolveEventName(type))?.delete(listener)
    },
    emit(event) {
      const forType = listeners.get(event.type)
      if (forType) for (const listener of [...forType]) call(listener, event)
      const forAll = listeners.get('*')
      if (forAll) for (const listener of [...forAll]) call(listener, event)
    },
  }
}
