/**
 * The session turn lock across servers, on Redis:
 * - a lease: `SET lease NX PX lease_ms` with a random token, renewed every third of the lease while
 *   the turn runs and released with a compare-and-delete script, so a server that dies mid-turn
 *   blocks the session only until the lease runs out;
 * - a fencing number: `INCR fence` on every take, kept in the lease's script, and checked (with the
 *   token) right before the turn is stored, extending the lease over the write; a holder whose lease
 *   moved to another server finds a different token and fence, and does not store.
 * Interrupts travel on one channel per cluster; each server acts on those naming its own turns.
 */
import { randomUUID } from 'node:crypto'
import { CharpipeError, StoreUnavailableError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { waitPastDeadline } from '../shared/wait-past-deadline.js'
import { toClusterStoreError } from './cluster-redis-error.js'
import type { ClusterRedis } from './connect-cluster-redis.js'
import type { ClusterInterrupt, InterruptListener, TurnCoordinator, TurnLease } from './turn-coordinator.js'

export interface RedisTurnCoordinatorOptions {
  redis: ClusterRedis
  /** Longest wait for one Redis command (`storage.timeout_ms`): a take older than this refuses itself. */
  commandTimeoutMs: number
  /** `cluster.lease_ms`. */
  leaseMs: number
  /** `cluster.lock_wait_ms`. */
  lockWaitMs: number
  logger: Logger
  /** Counts each turn that had to wait for another turn's lease. */
  onLockWait?: () => void
  /** Counts each interrupt from another server that stopped a turn here. */
  onRemoteInterrupt?: () => void
}

// KEYS: lease, fence, pending inputs, latest input taken, refused turns. ARGV: token, lease ms, fence
// lifetime ms, deadline (ms since the epoch), the input's number (0: none), its turn id ('': none).
// Returns the fence, 0 when taken, -1 when the request arrived after its deadline: the caller gave
// up on it (it sat in a frozen Redis's buffer, say) and nobody would ever release the lease; -2 when
// an earlier input of the session has not taken its turn yet (the pending set: input numbers scored
// with the time they stop counting); -3 when a later input took its turn already (this one stopped
// counting as pending while it waited, on a busy server): taking it now would store it after that
// later input. The numbering decides for good: the refused turn is kept, so the same input sent
// again (the same turn id, with a new and later number, or none: a resend queued on the same server)
// is refused too, never stored after the newer one.
// A fence that is gone (expired, or Redis lost its data) starts again from Redis' clock in
// milliseconds, above every fence handed out before, since stores keep the highest they saw.
const takeScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now > tonumber(ARGV[4]) then return -1 end
local order = tonumber(ARGV[5])
local turn = ARGV[6]
if turn ~= '' and redis.call('SISMEMBER', KEYS[5], turn) == 1 then return -3 end
if order > 0 then
  if order < tonumber(redis.call('GET', KEYS[4]) or '0') then
    if turn ~= '' then
      redis.call('SADD', KEYS[5], turn)
      redis.call('PEXPIRE', KEYS[5], ARGV[3])
    end
    return -3
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if tonumber(member) < order then return -2 end
  end
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if order > 0 then
    redis.call('ZREM', KEYS[3], ARGV[5])
    redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[3])
  end
  if redis.call('EXISTS', KEYS[2]) == 0 then
    redis.call('SET', KEYS[2], string.format('%.0f', now))
  end
  local fence = redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return fence
end
return 0`

// KEYS: input counter, pending inputs. ARGV: lifetime ms, how long the input may wait for its turn
// (ms), deadline (ms since the epoch). Numbers the session's next input and marks it pending until
// its turn takes the lock; -1 when it arrived after its deadline: the caller gave up on the number,
// and a pending input nobody takes would hold later ones back.
const numberInputScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now > tonumber(ARGV[3]) then return -1 end
local order = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), order)
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return order`

// KEYS: pending inputs. ARGV: the input's number.
const withdrawScript = `return redis.call('ZREM', KEYS[1], ARGV[1])`

// KEYS: lease. ARGV: token, lease ms.
const renewScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`

// KEYS: lease, fence. ARGV: token, lease ms, fence.
const confirmScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[3] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`

// KEYS: lease. ARGV: token.
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

// How often a lease whose release failed is released again while Redis answers (after a reconnect
// it is released at once).
const orphanRetryMs = 1000

// The fence (and the input counter) outlive any lease by far; they only have to keep growing while
// a session is in use.
const fenceLifetimeMs = 7 * 24 * 3600 * 1000

/**
 * An input whose turn came after a later input's (`interrupted_by_new_input`, as an input the newer
 * one stopped): never run or stored, and refused again when sent again.
 */
function createLateInputError(): CharpipeError {
  return new CharpipeError(
    'interrupted_by_new_input',
    'a newer input of this session took its turn first: this input is not run and not stored, now or sent again (it would come after the newer one)',
  )
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export function createRedisTurnCoordinator(options: RedisTurnCoordinatorOptions): TurnCoordinator {
  const { redis, leaseMs, lockWaitMs, logger } = options
  const commands = redis.commands
  const channel = redis.key('interrupts')
  // Often enough that a freed lease is taken quickly, rarely enough not to load Redis.
  const pollMs = Math.min(50, Math.max(10, Math.floor(leaseMs / 20)))
  // How long a numbered input holds later ones back before it takes the lock: its previous turn's
  // end (an interrupted reply's write: two store deadlines), its own lock wait, and a deadline of margin.
  const pendingMs = lockWaitMs + 3 * options.commandTimeoutMs
  const listeners: InterruptListener[] = []
  let subscribed: Promise<void> | undefined

  // Takes whose answer never came: released (compare-and-delete with their token, so only a lease
  // they did take) as soon as Redis answers again; at most `lease_ms` later they expire anyway.
  // A release that failed on a connection still up (a command timeout) is tried again a while later.
  const orphans = new Map<string, { leaseKey: string; until: number }>()
  let retry: NodeJS.Timeout | undefined
  const retryLater = () => {
    if (retry) return
    retry = setTimeout(() => {
      retry = undefined
      if (commands.status === 'ready') releaseOrphans()
    }, orphanRetryMs)
    retry.unref()
  }
  const releaseOrphans = () => {
    for (const [token, orphan] of orphans) {
      orphans.delete(token)
      if (Date.now() > orphan.until) continue
      commands.eval(releaseScript, 1, orphan.leaseKey, token).catch(() => {
        orphans.set(token, orphan)
        retryLater()
      })
    }
  }
  const releaseWhenConnected = (leaseKey: string, token: string) => {
    orphans.set(token, { leaseKey, until: Date.now() + leaseMs })
    if (commands.status === 'ready') releaseOrphans()
  }
  commands.on('ready', releaseOrphans)

  const holdLease = (session: string, token: string, fence: number): TurnLease => {
    const leaseKey = redis.key('lease', session)
    const fenceKey = redis.key('fence', session)
    let lost = false
    let released = false
    const renew = async () => {
      try {
        const renewed = await commands.eval(renewScript, 1, leaseKey, token, leaseMs)
        if (renewed === 0 && !released) {
          lost = true
          logger.warn({ session, fence }, 'the turn lock expired and moved; this turn will not be stored')
        }
      } catch (error) {
        // Redis away for a moment: the next renewal tries again, `confirm` decides before storing.
        logger.warn({ session, err: toClusterStoreError(error, 'renewing') }, 'the turn lock was not renewed')
      }
    }
    const timer = setInterval(() => void renew(), Math.max(100, Math.floor(leaseMs / 3)))
    timer.unref()
    return {
      fence,
      async confirm() {
        if (lost) return false
        try {
          const held = await commands.eval(confirmScript, 2, leaseKey, fenceKey, token, leaseMs, fence)
          return held === 1
        } catch (error) {
          throw toClusterStoreError(error, 'confirming the turn lock')
        }
      },
      async release() {
        if (released) return
        released = true
        clearInterval(timer)
        try {
          await commands.eval(releaseScript, 1, leaseKey, token)
        } catch (error) {
          // Released again as soon as Redis is back (a persistent Redis would otherwise keep the
          // session blocked up to lease_ms); it runs out by itself at the latest.
          releaseWhenConnected(leaseKey, token)
          logger.warn(
            { session, err: toClusterStoreError(error, 'releasing') },
            'the turn lock was not released; released again once Redis is back',
          )
        }
      },
    }
  }

  async function takeLock(
    session: string,
    signal: AbortSignal,
    order: number,
    turn: string | undefined,
  ): Promise<TurnLease> {
    const token = randomUUID()
    const deadline = Date.now() + lockWaitMs
    const leaseKey = redis.key('lease', session)
    const fenceKey = redis.key('fence', session)
    const pendingKey = redis.key('pending', session)
    const takenKey = redis.key('taken', session)
    const refusedKey = redis.key('refused', session)
    let waited = false
    for (;;) {
      signal.throwIfAborted()
      let fence: number
      const takeBy = Date.now() + options.commandTimeoutMs
      try {
        fence = Number(
          await commands.eval(
            takeScript,
            5,
            leaseKey,
            fenceKey,
            pendingKey,
            takenKey,
            refusedKey,
            token,
            leaseMs,
            fenceLifetimeMs,
            takeBy,
            order,
            turn ?? '',
          ),
        )
      } catch (error) {
        await waitPastDeadline(takeBy)
        // The take may have run with its answer lost (a connection reset, a reply past the timeout):
        // its lease would hold the session for lease_ms with nobody to release it.
        releaseWhenConnected(leaseKey, token)
        throw toClusterStoreError(error, 'taking the turn lock')
      }
      if (fence > 0) return holdLease(session, token, fence)
      // Final, not a store failure: sent again, the input would be refused the same way.
      if (fence === -3) throw createLateInputError()
      if (fence === -1) {
        throw new StoreUnavailableError("the cluster's Redis answered the turn lock too late", {
          store: 'cluster',
          timedOut: true,
        })
      }
      if (!waited) {
        waited = true
        options.onLockWait?.()
      }
      if (Date.now() >= deadline) {
        throw new StoreUnavailableError(
          fence === -2
            ? `an earlier input of this session did not take its turn within cluster.lock_wait_ms (${lockWaitMs} ms)`
            : `another server's turn of this session held its lock longer than cluster.lock_wait_ms (${lockWaitMs} ms)`,
          { store: 'cluster', timedOut: true },
        )
      }
      await sleep(pollMs, signal)
    }
  }

  async function withdrawInput(session: string, order: number): Promise<void> {
    try {
      await commands.eval(withdrawScript, 1, redis.key('pending', session), order)
    } catch (error) {
      // It stops counting by itself (`pendingMs`).
      logger.warn(
        { session, order, err: toClusterStoreError(error, 'withdrawing an input') },
        'a withdrawn input still holds later ones back for a while',
      )
    }
  }

  return {
    withdrawInput,
    async acquire(session, signal, numbered, turn) {
      // A failed numbering fails the input: unnumbered, it would skip the queue of earlier ones.
      const order = (await numbered) ?? 0
      try {
        return await takeLock(session, signal, order, turn)
      } catch (error) {
        // Given up (not aborted: the caller decides then): later inputs stop waiting for this one.
        if (order > 0 && !signal.aborted) void withdrawInput(session, order)
        throw error
      }
    },
    async announceNewInput(session) {
      let order: number
      const numberBy = Date.now() + options.commandTimeoutMs
      try {
        order = Number(
          await commands.eval(
            numberInputScript,
            2,
            redis.key('inputs', session),
            redis.key('pending', session),
            fenceLifetimeMs,
            pendingMs,
            numberBy,
          ),
        )
      } catch (error) {
        await waitPastDeadline(numberBy)
        throw toClusterStoreError(error, 'numbering the input')
      }
      if (order < 0) {
        throw new StoreUnavailableError("the cluster's Redis numbered the input too late", {
          store: 'cluster',
          timedOut: true,
        })
      }
      await redis.publish(
        channel,
        JSON.stringify({ session, kind: 'new_input', order, from: redis.serverId }),
      )
      return order
    },
    async publishInterrupt(message) {
      await redis.publish(channel, JSON.stringify({ ...message, from: redis.serverId }))
    },
    async onInterrupt(listener) {
      listeners.push(listener)
      subscribed ??= redis
        .subscribe(channel, (text) => {
          let message: ClusterInterrupt & { from?: string }
          try {
            message = JSON.parse(text)
          } catch {
            return
          }
          if (message.from === redis.serverId || typeof message.session !== 'string') return
          void Promise.all(listeners.map((each) => each(message))).then((counts) => {
            if (counts.some((count) => count > 0)) options.onRemoteInterrupt?.()
          })
        })
        .catch((error: unknown) => logger.error({ err: error }, 'cannot subscribe to cluster interrupts'))
      await subscribed
    },
  }
}
