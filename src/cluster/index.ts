/**
 * Several servers acting as one (`cluster.enabled`). This folder owns everything the servers decide
 * together through Redis: the per-session turn lock (lease, renewal, fencing), interrupts and new
 * inputs that must reach the server running a session's turn, and the admin config they share.
 * What is kept (history) stays with the stores in `memory/`; the engine asks for a lock through
 * `TurnCoordinator` and runs exactly as in one process when there is no cluster.
 */
export { type Cluster, type ClusterStats, connectCluster } from './connect-cluster.js'
export type { ClusterRedis } from './connect-cluster-redis.js'
export { type ConfigSync, type StartConfigSyncOptions, startConfigSync } from './start-config-sync.js'
export type { ClusterInterrupt, InterruptListener, TurnCoordinator, TurnLease } from './turn-coordinator.js'
