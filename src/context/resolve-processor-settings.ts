/**
 * Per-processor settings (SPEC R3.4, seed 003 §4.3): the model's `llm.processors` entry is the
 * fallback, the character's `pipeline.processors` entry replaces it whole when both exist.
 */
import type { CharpipeConfig, ProcessorSettings } from '../config/schema.js'
import { lookUpOwn } from '../shared/look-up-own.js'

export interface ResolvedProcessorSettings {
  settings: ProcessorSettings
  /** Which side the settings came from; `none` when neither config names the processor. */
  origin: 'pipeline' | 'llm' | 'none'
}

/** The effective settings entry for one processor id. */
export function resolveProcessorSettings(config: CharpipeConfig, id: string): ResolvedProcessorSettings {
  const character = lookUpOwn(config.pipeline.processors, id)
  if (character) return { settings: character, origin: 'pipeline' }
  const model = lookUpOwn(config.llm.processors, id)
  if (model) return { settings: model, origin: 'llm' }
  return { settings: {}, origin: 'none' }
}
