/**
 * Health endpoints, for the two questions a supervisor and a load balancer ask:
 * - `GET /livez` (liveness): the process answers HTTP. A restart is the cure only when this fails;
 *   it does not look at the stores, since restarting does not bring a database back.
 * - `GET /healthz` (health): the process answers and every store (in a cluster, its Redis too)
 *   answers within `storage.timeout_ms`; `503 {ok:false, down:[{store, reason}]}` names the store that does not.
 * - `GET /readyz` (readiness, for load balancers): healthy and not shutting down, so traffic moves to
 *   another server while this one drains.
 * The answers name the store and whether it timed out or failed, never the back end's own message
 * (it may name hosts); the log has the details.
 */
import type { Context, Hono } from 'hono'
import type { ConfigDisagreement } from '../../cluster/start-config-sync.js'
import type { Charpipe } from '../../engine/types.js'
import { CharpipeError } from '../../shared/errors.js'
import type { Logger } from '../../shared/logger.js'

export interface RegisterHealthRoutesOptions {
  charpipe: Charpipe
  logger: Logger
  /** True once the server has begun to shut down. */
  isClosing: () => boolean
  /** Where this server's config file and the cluster's version it runs differ (a cluster member). */
  readConfigDisagreement?: () => ConfigDisagreement | undefined
}

interface StoreDown {
  /** `cluster`: the Redis the servers of a cluster share (`cluster.enabled`). */
  store: 'history' | 'memory' | 'cluster'
  reason: 'timeout' | 'error'
}

// The probes read one message of a session nobody uses; plain text, as every back end must accept
// it (PostgreSQL refuses a NUL byte in text, for one).
const probeSession = 'charpipe-health-probe'

async function probe(
  store: StoreDown['store'],
  call: () => Promise<unknown>,
  timeoutMs: number,
  logger: Logger,
): Promise<StoreDown | undefined> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs)
  })
  try {
    const answered = await Promise.race([call().then(() => 'ok' as const), deadline])
    if (answered === 'ok') return undefined
    logger.warn({ store, timeoutMs }, 'health check: store did not answer')
    return { store, reason: 'timeout' }
  } catch (error) {
    logger.warn({ store, err: error }, 'health check: store failed')
    const timedOut = CharpipeError.isInstance(error) && 'timedOut' in error && error.timedOut === true
    return { store, reason: timedOut ? 'timeout' : 'error' }
  } finally {
    clearTimeout(timer)
  }
}

/** Checks every store of the current config at once; resolves with those that are down. */
export async function checkStores(charpipe: Charpipe, logger: Logger): Promise<StoreDown[]> {
  const timeoutMs = charpipe.config.storage.timeout_ms
  const checks = [
    probe('history', () => charpipe.sessions.history({ session: probeSession, limit: 1 }), timeoutMs, logger),
  ]
  const memory = charpipe.memory
  if (memory)
    checks.push(probe('memory', () => memory.list({ scope: probeSession, limit: 1 }), timeoutMs, logger))
  const cluster = charpipe.cluster
  if (cluster) checks.push(probe('cluster', () => cluster.check(), timeoutMs, logger))
  return (await Promise.all(checks)).filter((down) => down !== undefined)
}

export function registerHealthRoutes(app: Hono, options: RegisterHealthRoutesOptions): void {
  app.get('/livez', (context) => context.json({ ok: true }))
  app.get('/healthz', (context) => answerStores(context, options))
  app.get('/readyz', async (context) => {
    if (options.isClosing()) return context.json({ ok: false, closing: true }, 503)
    return answerStores(context, options)
  })
}

/** The stores' state; a cluster member whose file differs from the cluster's version says so (still ready). */
async function answerStores(context: Context, options: RegisterHealthRoutesOptions): Promise<Response> {
  const down = await checkStores(options.charpipe, options.logger)
  const disagreement = options.readConfigDisagreement?.()
  const config = disagreement
    ? {
        config: {
          file_differs: disagreement.fields,
          cluster_version: disagreement.version,
          message:
            "this server's config file and the cluster's config version differ; the cluster's version runs",
        },
      }
    : {}
  return down.length === 0
    ? context.json({ ok: true, ...config })
    : context.json({ ok: false, down, ...config }, 503)
}
