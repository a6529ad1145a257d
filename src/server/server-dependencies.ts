/** What the route modules share: the product, the config, metrics and the logger. */
import type { Charpipe } from '../engine/types.js'
import type { Logger } from '../shared/logger.js'
import type { ConfigManager } from './create-config-manager.js'
import type { ServerMetrics } from './create-server-metrics.js'

export interface ServerDependencies {
  charpipe: Charpipe
  configManager: ConfigManager
  metrics: ServerMetrics
  logger: Logger
}
