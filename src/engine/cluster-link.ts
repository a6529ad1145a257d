/**
 * The engine's side of a cluster (`cluster.enabled`): new inputs and interrupts made here are
 * announced to the other servers, and theirs stop the turns running here. Without a cluster every
 * call is a no-op, so the rest of the engine need not ask whether there is one.
 */
import type { Cluster } from '../cluster/connect-cluster.js'
import type { ClusterInterrupt } from '../cluster/turn-coordinator.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import type { EngineContext } from './engine-context.js'
import type { EngineRuntime } from './engine-runtime.js'
import { laneKeyOf, parseLaneKey } from './lane-key.js'
import { abortTurn, type TurnHandle } from './session-lanes.js'

export interface ClusterLink {
  /**
   * Numbers a turn among its session's inputs across the cluster (`handle.order`); earlier turns
   * elsewhere stop, and this one takes the session's lock after theirs.
   */
  announceNewInput(handle: TurnHandle): void
  /** Sends an interrupt to the other servers (a failure is logged, not thrown). */
  publishInterrupt(message: ClusterInterrupt): void
  /** Starts stopping the turns here that the other servers' interrupts and new inputs name. */
  listen(): Promise<void>
}

/** Loaded only with `cluster.enabled` (it needs ioredis). */
export async function connectOwnCluster(runtime: EngineRuntime, logger: Logger): Promise<Cluster> {
  const { connectCluster } = await import('../cluster/connect-cluster.js')
  return connectCluster(runtime.config, createChildLogger(logger, 'cluster'))
}

/**
 * In a cluster the running turn is the one holding the session's lock, on whichever server: an
 * interrupt stops it there, and queued turns (waiting here for the lock) only with `clearQueue`.
 */
export function selectInterrupted(turns: TurnHandle[], clearQueue: boolean | undefined): TurnHandle[] {
  return clearQueue ? turns : turns.filter((handle) => handle.running)
}

export function createClusterLink(context: EngineContext): ClusterLink {
  const { cluster, lanes, logger } = context

  function announceNewInput(handle: TurnHandle): void {
    const order = cluster!.coordinator.announceNewInput(laneKeyOf(handle.session, handle.character))
    // Each turn's place among its session's inputs across the cluster. A failed numbering (Redis
    // away) is a failed input: its lock refuses with the numbering's error, never order 0, which
    // would skip the queue of earlier inputs.
    order.catch(() => {})
    handle.order = order
  }

  /** Whether a turn came before the new input another server numbered `order`. */
  async function isEarlierInput(handle: TurnHandle, order: number | undefined): Promise<boolean> {
    const own = handle.order
    if (!own || order === undefined) return true
    // Unnumbered: it fails on its lock anyway.
    return own.then(
      (number) => number < order,
      () => true,
    )
  }

  function publishInterrupt(message: ClusterInterrupt): void {
    cluster?.coordinator.publishInterrupt(message).catch((error: unknown) => {
      logger.warn({ err: error, session: message.session }, 'the interrupt did not reach the other servers')
    })
  }

  // Another server asks: stop the turns of this session running here.
  const listen = async () => {
    await cluster?.coordinator.onInterrupt((message) => {
      // A new input names its lane (`laneKeyOf`); an interrupt names a session, or one character's lane.
      const lane = parseLaneKey(message.session)
      const character = lane.character ?? (message.kind === 'new_input' ? '' : undefined)
      // A new input stops prepared turns too; an interrupt stops replies only (a prepared turn is not one yet).
      const candidates =
        message.kind === 'new_input'
          ? lanes.turnsOf(lane.session, character)
          : lanes.repliesOf(lane.session, character)
      const named = candidates.filter((handle) => message.turn === undefined || handle.turn === message.turn)
      if (message.kind === 'new_input') {
        // A new input elsewhere stops every earlier turn of the session here, as entering the lane does.
        return Promise.all(
          named.map(async (handle) => {
            if (!(await isEarlierInput(handle, message.order))) return 0
            abortTurn(handle, { kind: 'new_input' })
            return 1
          }),
        ).then((stopped) => stopped.reduce<number>((sum, each) => sum + each, 0))
      }
      const handles = selectInterrupted(named, message.clearQueue)
      for (const handle of handles) {
        abortTurn(
          handle,
          handle.running ? { kind: 'interrupt', heard: message.heard } : { kind: 'interrupt' },
        )
      }
      return handles.length
    })
  }

  return { announceNewInput, publishInterrupt, listen }
}
