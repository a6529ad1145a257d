/**
 * The config check of the pipeline (a `ConfigCheck` for `parseConfig`): every processor entry in
 * `llm.processors` and `pipeline.processors` must name a known processor and pass its own
 * `validateSettings` (e.g. regex rules that RE2 can run), with number options inside their ranges.
 */

import type { ConfigCheck } from '../characters/load-config.js'
import { suggestClosestName } from '../config/find-closest-name.js'
import type { CharpipeConfig, ProcessorSettings } from '../config/schema.js'
import type { ConfigIssue } from '../shared/errors.js'
import { builtinProcessors } from './builtin-processors.js'
import { listRegisteredProcessors } from './processor-registry.js'
import type { ContextProcessor } from './types.js'

export interface CreatePipelineConfigCheckOptions {
  /** The processors to check against; defaults to the builtins and the registered plugins. */
  processors?: readonly ContextProcessor[]
}

/** A config check for a given set of processors. */
export function createPipelineConfigCheck(options: CreatePipelineConfigCheckOptions = {}): ConfigCheck {
  return (config: CharpipeConfig): ConfigIssue[] => {
    const known = new Map<string, ContextProcessor>()
    for (const processor of options.processors ?? [...builtinProcessors, ...listRegisteredProcessors()])
      known.set(processor.id, processor)
    const issues: ConfigIssue[] = []
    for (const [side, entries] of [
      ['llm.processors', config.llm.processors],
      ['pipeline.processors', config.pipeline.processors],
    ] as const) {
      for (const [id, settings] of Object.entries(entries)) {
        const processor = known.get(id)
        if (!processor) {
          issues.push({
            path: `${side}.${id}`,
            message: `unknown processor "${id}"${suggestClosestName(id, known.keys())}; known: ${[...known.keys()].join(', ')}`,
          })
          continue
        }
        issues.push(...findUnknownOptions(processor, settings, `${side}.${id}`))
        issues.push(...findOutOfRange(processor, settings, `${side}.${id}`))
        for (const problem of processor.validateSettings?.(settings) ?? []) {
          if (typeof problem === 'string') issues.push({ path: `${side}.${id}`, message: problem })
          else issues.push({ path: `${side}.${id}.${problem.path}`, message: problem.message })
        }
      }
    }
    return issues
  }
}

/**
 * Options a processor does not know (`top_kk`) are mistakes, not extensions: each is named with the
 * nearest option. Only for processors that declare their options (`configFields`); a plugin that
 * declares none reads what it likes.
 */
function findUnknownOptions(
  processor: ContextProcessor,
  settings: ProcessorSettings,
  path: string,
): ConfigIssue[] {
  if (!processor.configFields) return []
  const known = ['enabled', 'priority', ...processor.configFields.map((field) => field.key)]
  return Object.keys(settings)
    .filter((key) => !known.includes(key))
    .map((key) => ({
      path: `${path}.${key}`,
      message: `unknown option of ${processor.id}${suggestClosestName(key, known)}; options: ${known.join(', ')}`,
    }))
}

/** Number options outside the range their field declares (`max_input_chars: 1e9`, `-1`, `0`). */
function findOutOfRange(
  processor: ContextProcessor,
  settings: ProcessorSettings,
  path: string,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const field of processor.configFields ?? []) {
    const value = settings[field.key]
    if (typeof value !== 'number' || (field.min === undefined && field.max === undefined && !field.integer))
      continue
    const whole = field.integer ? 'a whole number' : 'a number'
    const range =
      field.min !== undefined && field.max !== undefined
        ? ` from ${field.min} to ${field.max}`
        : field.min !== undefined
          ? ` of at least ${field.min}`
          : ` of at most ${field.max}`
    const bad =
      !Number.isFinite(value) ||
      (field.integer && !Number.isInteger(value)) ||
      (field.min !== undefined && value < field.min) ||
      (field.max !== undefined && value > field.max)
    if (bad) issues.push({ path: `${path}.${field.key}`, message: `must be ${whole}${range}, got ${value}` })
  }
  return issues
}

/** Checks the processor settings of a config against the builtins and the registered plugins. */
export const checkPipelineConfig: ConfigCheck = (config) => createPipelineConfigCheck()(config)
