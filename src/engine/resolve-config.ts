/**
 * What `createCharpipe` accepts as its config, and how it becomes a parsed `CharpipeConfig`: a
 * config object is validated here, a `{ configPath }` is read from the file. Both run the pipeline
 * check, so a misconfigured processor is refused before the engine starts.
 */
import { loadConfig, parseConfig } from '../characters/load-config.js'
import type { CharpipeConfig } from '../config/schema.js'
import { checkPipelineConfig } from '../context/check-pipeline-config.js'
import type { Logger } from '../shared/logger.js'

export type CharpipeConfigSource = CharpipeConfig | { configPath: string }

export async function resolveConfig(source: CharpipeConfigSource, logger: Logger): Promise<CharpipeConfig> {
  if (
    source &&
    typeof source === 'object' &&
    'configPath' in source &&
    typeof source.configPath === 'string'
  ) {
    return (await loadConfig(source.configPath, { checks: [checkPipelineConfig] })).config
  }
  return parseConfig(source, { source: 'createCharpipe', logger, checks: [checkPipelineConfig] }).config
}
