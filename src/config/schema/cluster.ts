/**
 * The `cluster` section: several servers acting as one over Redis.
 */
import * as z from 'zod'

export const clusterSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Act as one of several servers sharing storage.redis_url (and storage.postgres_url): turns of one session never overlap across servers, an interrupt reaches the server running the turn, admin config changes reach every server.',
      ),
    lease_ms: z
      .int()
      .min(500)
      .max(600_000)
      .default(10_000)
      .describe(
        "How long a server holds a session's turn lock without renewing it (renewed every third of it while the turn runs): the longest a server that died mid-turn blocks its sessions.",
      ),
    lock_wait_ms: z
      .int()
      .positive()
      .max(3_600_000)
      .default(30_000)
      .describe(
        "Longest wait for a session's turn lock (or for Redis) before the turn ends with store_unavailable.",
      ),
    key_prefix: z
      .string()
      .min(1)
      .max(200)
      .default('charpipe:cluster:')
      .describe('Put before every Redis key and channel of the cluster; servers of one cluster share it.'),
    shared_secret: z
      .string()
      .refine((value) => value === '' || value.length >= 16, 'at least 16 characters (a long random value)')
      .default('')
      .describe(
        "Signs (HMAC-SHA256) and encrypts (AES-256-GCM) the config versions the servers share through Redis; the same long random value in every server's config file (config file only). Empty: admin changes are not shared and no version is taken from Redis.",
      ),
  })
  .describe('Several servers acting as one (Redis for locks, interrupts and config changes).')
