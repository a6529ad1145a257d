/**
 * The config check of the pipeline (a `ConfigCheck` for `parseConfig`): every processor entry in
 * `llm.processors` and `pipeline.processors` must name a known processor and pass its own
 * `validateSettings` (e.g. regexes that compile and cannot backtrack without end).
 */
import type { ConfigCheck } from '../config/load-config.js'
import type { CharpipeConfig } from '../config/schema.js'
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
            message: `unknown processor "${id}"; known: ${[...known.keys()].join(', ')}`,
          })
          continue
        }
        for (const problem of processor.validateSettings?.(settings) ?? []) {
          if (typeof problem === 'string') issues.push({ path: `${side}.${id}`, message: problem })
          else issues.push({ path: `${side}.${id}.${problem.path}`, message: problem.message })
        }
      }
    }
    return issues
  }
}

/** Checks the processor settings of a config against the builtins and the registered plugins. */
export const checkPipelineConfig: ConfigCheck = (config) => createPipelineConfigCheck()(config)
