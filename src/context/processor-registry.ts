/**
 * The global plugin registry: processors registered here join every pipeline (SPEC R3.2 "plugins
 * 900"). A pipeline reads it at each build, so a plugin registered after the pipeline was created
 * still runs from the next turn.
 */
import type { ContextProcessor } from './types.js'

const registered = new Map<string, ContextProcessor>()
let version = 0

/**
 * Adds a processor to every context pipeline (replacing one with the same id).
 * @returns a function that removes it again.
 * @example registerProcessor({ id: 'my-plugin', name: 'Mine', description: '…', priority: 900, execute(context) {…} })
 */
export function registerProcessor(processor: ContextProcessor): () => void {
  if (!processor.id || typeof processor.execute !== 'function') {
    throw new TypeError('registerProcessor: a processor needs an id and an execute function')
  }
  if (!Number.isFinite(processor.priority)) {
    throw new TypeError(`registerProcessor: processor "${processor.id}" needs a numeric priority`)
  }
  registered.set(processor.id, processor)
  version++
  return () => {
    if (registered.get(processor.id) === processor) {
      registered.delete(processor.id)
      version++
    }
  }
}

/** Changes whenever a processor is registered or removed (pipelines cache their plan on it). */
export function readRegistryVersion(): number {
  return version
}

/** Processors registered through `registerProcessor`, in registration order. */
export function listRegisteredProcessors(): ContextProcessor[] {
  return [...registered.values()]
}
