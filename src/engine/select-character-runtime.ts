/**
 * A character's view of a runtime: the same provider (unless it depends on the character, as the
 * builtin mock's replies do), stores and token counter, with the config of that character
 * (`selectCharacterConfig`) and the reply parser options its emotions and reply format make. Views are made on first use and kept with the runtime, so a reload (a new runtime)
 * rebuilds them from the new config and a turn keeps the view it started with.
 */
import { selectCharacterConfig } from '../config/select-character-config.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import type { EngineParts } from './engine-parts.js'
import { type EngineRuntime, isSameProviderConfig } from './engine-runtime.js'

const viewsOf = new WeakMap<EngineRuntime, Map<string, EngineRuntime>>()

export interface SelectCharacterRuntimeOptions {
  parts: Pick<EngineParts, 'replyParserOptionsFromConfig'>
  logger: Logger
}

/** The runtime a turn with `character` (a key of `characters`; undefined: the default) runs on. */
export function selectCharacterRuntime(
  runtime: EngineRuntime,
  character: string | undefined,
  options: SelectCharacterRuntimeOptions,
): EngineRuntime {
  const config = selectCharacterConfig(runtime.config, character)
  if (config === runtime.config) return runtime
  const key = character ?? ''
  let views = viewsOf.get(runtime)
  const known = views?.get(key)
  if (known) return known
  const parserLogger = createChildLogger(options.logger, 'reply')
  const view: EngineRuntime = {
    ...runtime,
    config,
    // Only a provider that depends on the character (the builtin mock's replies) is built again.
    provider:
      runtime.rebuildProvider && !isSameProviderConfig(runtime.config, config)
        ? runtime.rebuildProvider(config)
        : runtime.provider,
    parserOptions: options.parts.replyParserOptionsFromConfig(config, (level, message) =>
      level === 'warn' ? parserLogger.warn(message) : parserLogger.debug(message),
    ),
    base: runtime,
  }
  if (!views) {
    views = new Map()
    viewsOf.set(runtime, views)
  }
  views.set(key, view)
  return view
}
