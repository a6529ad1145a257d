/**
 * When each named client (`server.clients`) was last seen: the time of its last admitted request,
 * for the admin's client list. Kept in memory per server (a restart forgets it), bounded by the
 * names the config allows.
 */

export interface ClientUsage {
  /** A request of the client was admitted now. */
  record(name: string): void
  /** Milliseconds since the epoch of its last admitted request; undefined when none since the start. */
  lastUsedAt(name: string): number | undefined
}

export interface CreateClientUsageOptions {
  /** The clock. @default Date.now */
  now?: () => number
  /** Most names kept; past it the oldest is forgotten. @default 1000 (the config's most clients) */
  maxClients?: number
}

export function createClientUsage(options: CreateClientUsageOptions = {}): ClientUsage {
  const now = options.now ?? Date.now
  const maxClients = options.maxClients ?? 1000
  // Insertion order is recency order: a recorded name is moved to the end.
  const lastUsed = new Map<string, number>()
  return {
    record(name) {
      lastUsed.delete(name)
      lastUsed.set(name, now())
      if (lastUsed.size > maxClients) lastUsed.delete(lastUsed.keys().next().value!)
    },
    lastUsedAt: (name) => lastUsed.get(name),
  }
}
