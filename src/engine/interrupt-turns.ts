/**
 * `charpipe.interrupt(session, options)`: stops the running turn of each of the session's
 * character lanes (or of one character's), and with `clearQueue` the queued ones too. In a cluster
 * the interrupt also goes to the other servers, since the running turn may be on any of them.
 */
import { findCharacter, isDefaultCharacter } from '../config/select-character-config.js'
import { type ClusterLink, selectInterrupted } from './cluster-link.js'
import type { EngineContext } from './engine-context.js'
import { laneKeyOf } from './lane-key.js'
import { abortTurn, type TurnHandle } from './session-lanes.js'
import type { InterruptOptions } from './types.js'

/** The first turn of each character's lane among a session's turns (they are in lane order). */
function firstOfEachLane(turns: TurnHandle[]): TurnHandle[] {
  const seen = new Set<string>()
  return turns.filter((handle) => {
    const lane = handle.character ?? ''
    if (seen.has(lane)) return false
    seen.add(lane)
    return true
  })
}

async function interruptHandles(handles: TurnHandle[], options: InterruptOptions = {}): Promise<void> {
  for (const handle of handles) {
    abortTurn(handle, handle.running ? { kind: 'interrupt', heard: options.heard } : { kind: 'interrupt' })
  }
  await Promise.all(handles.map((handle) => handle.ended))
}

export function interruptTurns(
  context: EngineContext,
  clusterLink: ClusterLink,
  session: string,
  interruptOptions: InterruptOptions = {},
): Promise<void> {
  const config = context.current.config
  const chosen = interruptOptions.character
  // A character named: its lane only ('' is the default's); none: every character's in the session.
  const known = chosen === undefined || findCharacter(config, chosen) !== undefined
  const character =
    chosen === undefined || !known ? undefined : isDefaultCharacter(config, chosen) ? '' : chosen
  // Replies only: a prepared turn is not one yet, so there is nothing of it to stop.
  const turns = known ? context.lanes.repliesOf(session, character) : []
  if (context.cluster) {
    const { heard, clearQueue } = interruptOptions
    clusterLink.publishInterrupt({
      session: character ? laneKeyOf(session, character) : session,
      kind: 'interrupt',
      ...(heard === undefined ? {} : { heard }),
      ...(clearQueue ? { clearQueue } : {}),
    })
    return interruptHandles(selectInterrupted(turns, clearQueue), interruptOptions)
  }
  // A lane's turns are in arrival order: the first of each is the running one (or about to run).
  return interruptHandles(interruptOptions.clearQueue ? turns : firstOfEachLane(turns), interruptOptions)
}
