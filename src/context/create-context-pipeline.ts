/**
 * The context pipeline (SPEC R3.1, seed 003): one ordered list of processors run over a mutable
 * context. Builtins, processors registered globally and processors registered on this pipeline are
 * merged by id; each one's settings come from the config (R3.4), where `enabled` and `priority`
 * override its defaults. A processor that throws is logged and skipped unless it is core.
 */
import type { CharpipeConfig, ProcessorSettings } from '../config/schema.js'
import { AbortedError, CharpipeError } from '../shared/errors.js'
import { builtinProcessors } from './builtin-processors.js'
import { createInputMessage } from './create-input-message.js'
import { createPreviewResult } from './create-preview-result.js'
import { listRegisteredProcessors, readRegistryVersion } from './processor-registry.js'
import { resolveProcessorSettings } from './resolve-processor-settings.js'
import type {
  BuildContextOptions,
  BuildContextResult,
  ContextPipeline,
  ContextProcessor,
  PipelineContext,
  ProcessorInfo,
} from './types.js'

export interface CreateContextPipelineOptions {
  /** The processors to run; defaults to the builtins. Globally registered plugins are always added. */
  processors?: ContextProcessor[]
}

interface PlannedProcessor {
  processor: ContextProcessor
  settings: ProcessorSettings
  priority: number
  enabled: boolean
}

function planProcessors(processors: Iterable<ContextProcessor>, config: CharpipeConfig): PlannedProcessor[] {
  const planned: PlannedProcessor[] = []
  for (const processor of processors) {
    const { settings } = resolveProcessorSettings(config, processor.id)
    planned.push({
      processor,
      settings,
      priority: typeof settings.priority === 'number' ? settings.priority : processor.priority,
      enabled: settings.enabled ?? processor.defaultEnabled ?? true,
    })
  }
  // Array sort is stable, so equal priorities keep their registration order.
  return planned.sort((left, right) => left.priority - right.priority)
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Creates a pipeline.
 * @example
 * const pipeline = createContextPipeline()
 * const { messages } = await pipeline.build({ input, config, capabilities, services })
 */
export function createContextPipeline(options: CreateContextPipelineOptions = {}): ContextPipeline {
  const base = options.processors ?? builtinProcessors
  const own = new Map<string, ContextProcessor>()
  let ownVersion = 0
  // The plan of each config (configs are never changed in place: a reload brings a new object),
  // valid while no processor is registered or removed here or globally.
  let plans = new WeakMap<CharpipeConfig, PlannedProcessor[]>()
  let plansVersion = ''

  const collectProcessors = (): ContextProcessor[] => {
    const byId = new Map<string, ContextProcessor>()
    for (const processor of base) byId.set(processor.id, processor)
    for (const processor of listRegisteredProcessors()) byId.set(processor.id, processor)
    for (const processor of own.values()) byId.set(processor.id, processor)
    return [...byId.values()]
  }

  const planFor = (config: CharpipeConfig): PlannedProcessor[] => {
    const version = `${readRegistryVersion()}:${ownVersion}`
    if (version !== plansVersion) {
      plans = new WeakMap()
      plansVersion = version
    }
    let plan = plans.get(config)
    if (!plan) {
      plan = planProcessors(collectProcessors(), config)
      plans.set(config, plan)
    }
    return plan
  }

  const run = async (options: BuildContextOptions): Promise<BuildContextResult> => {
    const context: PipelineContext = {
      messages: [createInputMessage(options.input)],
      input: options.input,
      character: options.config.character,
      config: options.config,
      capabilities: options.capabilities,
      services: options.services,
      timestamp: options.timestamp ?? Date.now(),
      signal: options.signal,
      sharedData: new Map(),
      logs: [],
    }
    const logger = options.services.logger
    for (const step of planFor(options.config)) {
      if (!step.enabled) continue
      if (options.signal?.aborted) throw new AbortedError('context build aborted')
      try {
        await step.processor.execute(context, step.settings)
      } catch (error) {
        if (options.signal?.aborted) throw new AbortedError('context build aborted', { cause: error })
        if (step.processor.isCore) throw error
        // A store that is down ends the turn (processors that can do without it catch it themselves).
        if (CharpipeError.isInstance(error) && error.code === 'store_unavailable') throw error
        const message = `processor ${step.processor.id} failed and was skipped: ${describeError(error)}`
        context.logs.push({ processorId: step.processor.id, level: 'error', message })
        logger.error({ processor: step.processor.id, err: error }, message)
      }
    }
    return { messages: context.messages, logs: context.logs, sharedData: context.sharedData }
  }

  return {
    build: run,

    async preview(options) {
      const result = await run(options)
      return createPreviewResult(result, options.services.tokenCounter)
    },

    listProcessors(config): ProcessorInfo[] {
      return planProcessors(collectProcessors(), config).map((step) => ({
        id: step.processor.id,
        name: step.processor.name,
        description: step.processor.description,
        priority: step.priority,
        enabled: step.enabled,
        isCore: step.processor.isCore ?? false,
        configFields: step.processor.configFields ?? [],
        settings: step.settings,
      }))
    },

    register(processor) {
      if (!processor.id || typeof processor.execute !== 'function') {
        throw new TypeError('register: a processor needs an id and an execute function')
      }
      own.set(processor.id, processor)
      ownVersion++
    },
  }
}
