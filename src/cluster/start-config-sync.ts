/**
 * Admin config changes shared by the servers of a cluster. Redis is trusted for coordination, not
 * for authority: the running version lives in one Redis hash (`{prefix}config`: `version`, `from`,
 * `payload`, `signature`), sealed with `cluster.shared_secret` (encrypted and signed, see
 * seal-config-version.ts). A change made on one server (admin API, or a hand edit of that server's
 * file picked up by its watch) is stored with the next version and the version is published; every
 * other server fetches it on the message, or at the latest at its next check (once a second).
 *
 * A version carries none of the fields each server keeps for itself (tokens, folders, storage, its
 * address, stdio MCP programs, the cluster section): they are taken out before it is shared, and an
 * adopted version passes the trust gate as `cluster` (the config manager's `adopt`). A version whose
 * signature fails, or that the gate refuses, is logged and not taken.
 *
 * The file on disk is the bootstrap: the first server of a cluster stores its config; a server that
 * starts later runs the cluster's version, so an admin change survives the restart of one member.
 * Where that version and the server's own file differ, it says so (the log, and `/readyz` through
 * `disagreement()`), field by field. A stored version that does not verify (a hostile writer, or a
 * new shared secret in the files) is replaced by this server's file.
 */
import { isDeepStrictEqual } from 'node:util'
import { removeNodeLocalFields } from '../config/gate/index.js'
import type { CharpipeConfig } from '../config/schema.js'
import type { Logger } from '../shared/logger.js'
import { toClusterStoreError } from './cluster-redis-error.js'
import type { ClusterRedis } from './connect-cluster-redis.js'
import { createConfigVersionSeal, type SealedConfigVersion } from './seal-config-version.js'

export interface StartConfigSyncOptions {
  redis: ClusterRedis
  /** The config this server started with (from its file). */
  initial: CharpipeConfig
  /** `cluster.shared_secret` of this server's file (at least 16 characters). */
  sharedSecret: string
  /** Applies a version another server stored, without this server's own fields; rejects when refused. */
  adopt(shared: Record<string, unknown>): Promise<unknown>
  logger: Logger
  /** How often the stored version is compared with the applied one. @default 1000 */
  checkIntervalMs?: number
}

/** Where this server's own file and the cluster's version it runs differ. */
export interface ConfigDisagreement {
  version: number
  /** Field paths (no values: some are secrets). */
  fields: string[]
}

export interface ConfigSync {
  /** The version this server runs. */
  version(): number
  /** Stores a config applied here and tells the other servers; rejects with StoreUnavailableError. */
  publish(config: CharpipeConfig): Promise<void>
  /** Set while the cluster's version this server runs differs from its own file. */
  disagreement(): ConfigDisagreement | undefined
  close(): void
}

const fieldNames = ['version', 'from', 'payload', 'signature'] as const

// KEYS: config hash. ARGV: the version expected there ('' for none), then the new fields.
// Stores them only when the version there is the expected one; returns 1 when stored.
const replaceScript = `
local current = redis.call('HGET', KEYS[1], 'version')
if (current or '') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'from', ARGV[3], 'payload', ARGV[4], 'signature', ARGV[5])
return 1`

export async function startConfigSync(options: StartConfigSyncOptions): Promise<ConfigSync> {
  const { redis, logger } = options
  const key = redis.key('config')
  const channel = redis.key('config-changes')
  const seal = createConfigVersionSeal(options.sharedSecret)
  let own = removeNodeLocalFields(options.initial)
  let applied = 0
  let refused = 0
  let disagreement: ConfigDisagreement | undefined
  let queue: Promise<void> = Promise.resolve()
  let closed = false

  const read = async (): Promise<Partial<SealedConfigVersion>> => {
    const values = await redis.commands.hmget(key, ...fieldNames)
    return Object.fromEntries(fieldNames.map((name, index) => [name, values[index] ?? undefined]))
  }

  /** Stores `config` as the version after `expected`; false when another server stored one first. */
  const store = async (expected: string, version: number, config: Record<string, unknown>) => {
    const sealed = seal.seal(version, redis.serverId, config)
    const stored = await redis.commands.eval(
      replaceScript,
      1,
      key,
      expected,
      sealed.version,
      sealed.from,
      sealed.payload,
      sealed.signature,
    )
    return Number(stored) === 1
  }

  const compareWithFile = (version: number, shared: Record<string, unknown>) => {
    const fields = listDifferingFields(own, shared)
    disagreement = fields.length > 0 ? { version, fields } : undefined
    if (disagreement)
      logger.warn(
        { version, fields },
        `this server's config file and the cluster's config version ${version} disagree (${fields.join(', ')}); the cluster's version runs. Edit the file of every server, or change the field through the admin API`,
      )
  }

  const fetchAndAdopt = async (starting = false) => {
    const fields = await read()
    const stored = Number(fields.version)
    if (!fields.version || !(stored > applied) || stored === refused) return
    let opened: ReturnType<typeof seal.open>
    try {
      opened = seal.open(fields)
    } catch (error) {
      refused = stored
      logger.error(
        { version: fields.version, reason: (error as Error).message },
        `refused the shared config version in Redis: ${(error as Error).message}`,
      )
      if (starting) await takeOver(fields.version)
      return
    }
    applied = opened.version
    if (opened.from === redis.serverId) return
    try {
      await options.adopt(opened.config)
      logger.info({ version: opened.version }, 'config changed on another server; applied from the next turn')
      compareWithFile(opened.version, opened.config)
    } catch (error) {
      logger.error(
        { err: error, version: opened.version },
        'refused the shared config version stored by another server',
      )
    }
  }

  // The stored version does not verify: this server's file becomes the cluster's version.
  const takeOver = async (expected: string) => {
    const next = (Number.isSafeInteger(Number(expected)) ? Number(expected) : 0) + 1
    if (await store(expected, next, own)) {
      applied = next
      logger.warn({ version: next }, "this server's config file is now the cluster's shared config")
    }
  }

  // One check at a time, in order; a failure (Redis away) waits for the next tick. While Redis is
  // away, one line when the checks start failing and one when they work again, not one a second.
  let failing = false
  const check = () => {
    queue = queue
      .then(() => fetchAndAdopt())
      .then(
        () => {
          if (failing) logger.info('shared config reachable again')
          failing = false
        },
        (error: unknown) => {
          if (!failing) {
            logger.warn(
              { err: toClusterStoreError(error, 'reading the shared config') },
              'config check failed',
            )
          }
          failing = true
        },
      )
    return queue
  }

  try {
    if (await store('', 1, own)) {
      applied = 1
      logger.info('no shared config yet: this server stored its own')
    } else {
      await fetchAndAdopt(true)
    }
  } catch (error) {
    throw toClusterStoreError(error, 'reading the shared config')
  }
  await redis.subscribe(channel, () => void check())
  const timer = setInterval(() => void check(), options.checkIntervalMs ?? 1000)
  timer.unref()

  return {
    version: () => applied,
    disagreement: () => disagreement,
    async publish(config) {
      if (closed) return
      const shared = removeNodeLocalFields(config)
      try {
        // Another server may store a version between the read and the write: read again then.
        for (let attempt = 0; attempt < 10; attempt++) {
          const current = (await redis.commands.hget(key, 'version')) ?? ''
          const parsed = Number(current)
          const next = (Number.isSafeInteger(parsed) ? Math.max(parsed, applied) : applied) + 1
          if (!(await store(current, next, shared))) continue
          applied = next
          // The change was made here: this server's file holds it.
          own = shared
          disagreement = undefined
          await redis.commands.publish(channel, String(next))
          return
        }
        throw new Error('the shared config kept changing while this change was stored')
      } catch (error) {
        throw toClusterStoreError(error, 'sharing the config change')
      }
    },
    close() {
      closed = true
      clearInterval(timer)
    },
  }
}

/** Dotted paths of the leaves where `left` and `right` differ (a list counts as one leaf). */
function listDifferingFields(left: unknown, right: unknown, path: string[] = []): string[] {
  const isMapping = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
  if (isMapping(left) && isMapping(right)) {
    const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])]
    return keys.flatMap((name) => listDifferingFields(left[name], right[name], [...path, name]))
  }
  return isDeepStrictEqual(left, right) ? [] : [path.join('.')]
}
