/** What the route modules share: the product, the config, metrics and the logger. */
import type { Admission } from '../admission/index.js'
import type { LookupAddresses } from '../config/find-forbidden-url-targets.js'
import type { Charpipe } from '../engine/types.js'
import type { Logger } from '../shared/logger.js'
import type { AdmitRoute } from './admit-request.js'
import type { ConfigManager } from './create-config-manager.js'
import type { ReaderLedger } from './create-reader-ledger.js'
import type { ServerMetrics } from './create-server-metrics.js'
import type { SessionOwners } from './create-session-owners.js'

export interface ServerDependencies {
  charpipe: Charpipe
  configManager: ConfigManager
  metrics: ServerMetrics
  logger: Logger
  /** Which client key each bound session belongs to. */
  sessionOwners: SessionOwners
  /** The one admission every door passes (src/admission/). */
  admission?: Admission
  /** Declares what a route admits, first among its handlers: `app.post(path, admit('http_chat'), …)`. */
  admit: AdmitRoute
  /** The bytes held for slow readers, all together (`server.limits.buffered_bytes_total`). */
  readerLedger?: ReaderLedger
  /** Resolves host names for the outbound address check (tests pass a fake). */
  lookup?: LookupAddresses
}
