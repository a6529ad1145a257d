/**
 * Servers of a cluster test: real `charpipe serve` processes (the server itself, so a signal sent to
 * one reaches it), each with the address it listens on, and what the tests read of them over HTTP.
 */
import { spawnServeProcess, type WatchedServe, waitForListening, watchServe } from './spawn-serve.js'

export interface ServeMember extends WatchedServe {
  url: string
}

/** Starts `charpipe serve` on `configPath` in `cwd` (logging at info) and waits for its listening line. */
export async function startServeMember(configPath: string, cwd: string): Promise<ServeMember> {
  const serve = watchServe(
    spawnServeProcess(configPath, { cwd, env: { ...process.env, CHARPIPE_LOG_LEVEL: 'info' } }),
  )
  return { ...serve, url: await waitForListening(serve) }
}

export interface StoredMessageOnWire {
  role: string
  content: string
  turn: string
  interrupted?: boolean
}

/** A session's stored messages, oldest first, as `GET /api/sessions/:id/messages` answers them. */
export async function readHistory(member: ServeMember, session: string): Promise<StoredMessageOnWire[]> {
  const answer = await fetch(`${member.url}/api/sessions/${session}/messages?limit=200`)
  return ((await answer.json()) as { messages: StoredMessageOnWire[] }).messages
}

/** How often the server waited for a session's cluster lock (`/metrics`). */
export async function readLockWaits(member: ServeMember): Promise<number> {
  const metrics = await (await fetch(`${member.url}/metrics`)).text()
  return Number(/^charpipe_cluster_lock_waits_total (\d+)/m.exec(metrics)?.[1] ?? 'NaN')
}
