/**
 * History in Redis (seed 002): one list per character and session holding the messages as JSON in
 * order, a small hash beside it with the reset marker, and a set of sessions per character. A
 * message's id is its position in the list plus one, so ids grow within a session without a counter.
 *
 * Keys: `{prefix}history:{character}:session`, `…:meta`, `…:turns` (each stored turn's id and the
 * index of its first message: a turn is stored once) and `{prefix}history-sessions:{character}`.
 * The braces are a Redis Cluster hash tag: every key of one character lands in the same slot, so the
 * MULTI of a turn works on a cluster too.
 */
import type { ChainableCommander, Redis } from 'ioredis'
import { BadRequestError } from '../../shared/errors.js'
import { getLogger, type Logger, scrubSecrets } from '../../shared/logger.js'
import { waitPastDeadline } from '../../shared/wait-past-deadline.js'
import type { ConversationScope, HistoryStore, StoredMessage } from '../types.js'
import { markWriteNotApplied } from '../write-not-applied.js'
import { describeError, describeServerUrl, HistoryStoreError } from './history-store-error.js'
import { loadOptionalPeer } from './load-optional-peer.js'
import { validateCompletedTurn, validateMaxTurns, validateScope } from './validate-completed-turn.js'

export interface RedisHistoryStoreOptions {
  /** `redis://[user:password@]host:port[/db]`. Either this or `client`. */
  url?: string
  /** An ioredis client the caller owns (and closes). */
  client?: Redis
  /**
   * Put before every key, to share one Redis between deployments or tests.
   * @default 'charpipe:'
   */
  keyPrefix?: string
  /**
   * Longest wait for one command or the connection, in milliseconds (with `url`).
   * @default 1000
   */
  timeoutMs?: number
  logger?: Logger
}

// Percent-encode the characters that would make two scopes share a key (the separator, the escape
// itself and the hash-tag braces).
const escapeKeyPart = (part: string) =>
  part.replace(/[%:{}]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)

// The first lines of every script below that changes a session (a turn's write, a reset, a clear):
// ARGV[1] is the deadline (ms since the epoch, 0: none); a command Redis runs after it (it sat in a
// frozen server's buffer, or crossed a partition late) refuses itself, so a clear the caller was
// told had failed cannot remove turns stored after it.
const refuseLate = `
local deadline = tonumber(ARGV[1])
if deadline > 0 then
  local now = redis.call('TIME')
  if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > deadline then
    return redis.error_reply('LATE the command arrived after its deadline')
  end
end`

// Moves the reset marker to the current end of the list, atomically with respect to appends.
const resetScript = `${refuseLate}
local length = redis.call('LLEN', KEYS[1])
if length == 0 then return 0 end
redis.call('HSET', KEYS[2], 'contextStart', length, 'contextTurns', 0)
return length`

// KEYS: list, meta, turns, sessions. ARGV: deadline, session.
const clearScript = `${refuseLate}
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[2])
return 1`

// KEYS: list, meta, sessions, turns. ARGV: deadline (ms since the epoch, 0: none), session, turn,
// the id of the turn it replaces ('' for none), then the messages as JSON. A write Redis runs after its deadline (it sat in a frozen server's
// buffer, say) refuses itself, so once the deadline has passed a read by turn id is the truth; a
// turn stored already is not stored again. Returns 1 when stored, 0 when it was there already.
const appendScript = `${refuseLate}
if redis.call('HEXISTS', KEYS[4], ARGV[3]) == 1 then return 0 end
if ARGV[4] ~= '' then
  -- A replaced turn: only the session's newest (the list's tail), inside the current context.
  local first = redis.call('HGET', KEYS[4], ARGV[4])
  local contextStart = tonumber(redis.call('HGET', KEYS[2], 'contextStart') or '0')
  if first and tonumber(first) >= contextStart then
    first = tonumber(first)
    local newest = true
    for _, json in ipairs(redis.call('LRANGE', KEYS[1], first, -1)) do
      if cjson.decode(json).turn ~= ARGV[4] then newest = false end
    end
    if newest then
      if first == 0 then redis.call('DEL', KEYS[1]) else redis.call('LTRIM', KEYS[1], 0, first - 1) end
      redis.call('HDEL', KEYS[4], ARGV[4])
      redis.call('HINCRBY', KEYS[2], 'contextTurns', -1)
    end
  end
end
local length = redis.call('RPUSH', KEYS[1], unpack(ARGV, 5))
redis.call('HSET', KEYS[4], ARGV[3], length - (#ARGV - 4))
redis.call('HINCRBY', KEYS[2], 'contextTurns', 1)
redis.call('SADD', KEYS[3], ARGV[2])
return 1`

// KEYS: turns. ARGV: deadline (ms since the epoch), turn. Redis runs one script at a time, so once
// its clock is past the deadline no write of the turn can still land: 1 stored, 0 not; before
// then, minus how many milliseconds are left.
const settleScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now <= tonumber(ARGV[1]) then return now - tonumber(ARGV[1]) - 1 end
return redis.call('HEXISTS', KEYS[1], ARGV[2])`

type StoredJson = Omit<StoredMessage, 'id'>

async function connectClient(url: string, timeoutMs: number, logger: Logger): Promise<Redis> {
  const ioredis = await loadOptionalPeer<typeof import('ioredis')>({
    packageName: 'ioredis',
    neededFor: 'history.store: redis',
  })
  const where = describeServerUrl(url)
  // Fail fast while Redis is away instead of queueing and retrying each command for seconds: no
  // offline queue, no per-command retry, a timeout on every command; the connection itself keeps
  // being retried in the background (at most once a second), so the store heals when Redis is back.
  const client = new ioredis.Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 1000),
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  })
  let lastLogged = 0
  client.on('error', (error: Error) => {
    // While Redis is down every reconnect attempt fails: one line every 10 s is enough.
    if (Date.now() - lastLogged < 10_000) return
    lastLogged = Date.now()
    logger.warn({ where, err: scrubSecrets(error.message) }, 'redis error')
  })
  try {
    await client.connect()
  } catch (error) {
    client.disconnect()
    throw new HistoryStoreError(
      `cannot connect to Redis at ${where}: ${scrubSecrets(describeError(error))}`,
      {
        cause: error,
      },
    )
  }
  return client
}

async function runMulti(commands: ChainableCommander): Promise<unknown[]> {
  const results = await commands.exec()
  if (!results) throw new HistoryStoreError('redis transaction was aborted')
  return results.map(([error, value]) => {
    if (error) throw new HistoryStoreError(`redis command failed: ${error.message}`, { cause: error })
    return value
  })
}

/**
 * A write that certainly changed nothing: Redis refused the script (an error reply: the deadline
 * passed, say), or ioredis never wrote it (a caller's client without an offline queue, not connected).
 */
function isUnsent(error: unknown): boolean {
  const { name, message } = error as Partial<Error>
  return name === 'ReplyError' || (message?.startsWith("Stream isn't writeable") ?? false)
}

/**
 * Runs a script that carries `deadline`; when it fails without a word from Redis (a timeout, a
 * broken connection), the failure is told only once the wall clock is past the deadline, when the
 * script can no longer run (`waitPastDeadline`). Told earlier, the caller's next write could be
 * followed by this one landing. A refusal by Redis is told at once: that script never runs.
 */
async function failPastDeadline(deadline: number, run: () => Promise<unknown>): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (deadline > 0 && !isUnsent(error)) await waitPastDeadline(deadline)
    throw error
  }
}

function parseMessage(json: string, index: number): StoredMessage {
  return { ...(JSON.parse(json) as StoredJson), id: String(index + 1) }
}

// Sets one message of the list only if it is still the one read (ARGV[2]): a reset or a clear in
// between makes the caller read it again.
const replaceMessageScript = `
local current = redis.call('LINDEX', KEYS[1], tonumber(ARGV[1]))
if current ~= ARGV[2] then return 0 end
redis.call('LSET', KEYS[1], tonumber(ARGV[1]), ARGV[3])
return 1`

/** Creates a Redis history store; connects (or takes `client`) before it resolves. */
export async function createRedisHistoryStore(options: RedisHistoryStoreOptions): Promise<HistoryStore> {
  const logger = options.logger ?? getLogger('history')
  if (!options.client && !options.url) {
    throw new HistoryStoreError('createRedisHistoryStore: give url (storage.redis_url) or client')
  }
  const ownsClient = !options.client
  const client = options.client ?? (await connectClient(options.url!, options.timeoutMs ?? 1000, logger))
  // Our own client has no offline queue: while it reconnects, say so rather than ioredis's
  // "Stream isn't writeable" for each command.
  const checkConnected = () => {
    if (ownsClient && client.status !== 'ready') {
      throw new HistoryStoreError(
        `not connected to Redis at ${describeServerUrl(options.url!)} (${client.status})`,
      )
    }
  }
  const prefix = options.keyPrefix ?? 'charpipe:'
  // A reset or clear is late once its command timeout has passed (a caller's own client: no deadline).
  const lateAfter = () => (options.timeoutMs === undefined ? 0 : Date.now() + options.timeoutMs)

  const keysOf = (scope: ConversationScope) => {
    const tag = `{${escapeKeyPart(scope.character)}}`
    const list = `${prefix}history:${tag}:${escapeKeyPart(scope.session)}`
    return {
      list,
      meta: `${list}:meta`,
      turns: `${list}:turns`,
      sessions: `${prefix}history-sessions:${tag}`,
    }
  }

  const toJson = (message: StoredMessage, turn: string) => {
    const { id: _id, ...rest } = message
    return JSON.stringify({ ...rest, turn })
  }

  return {
    async loadRecent(scope, maxTurns) {
      checkConnected()
      validateScope(scope)
      validateMaxTurns(maxTurns)
      if (maxTurns <= 0) return []
      const keys = keysOf(scope)
      // Each turn is one or two messages, so the last 2N entries always hold the last N turns.
      const [length, contextStart, tail] = (await runMulti(
        client
          .multi()
          .llen(keys.list)
          .hget(keys.meta, 'contextStart')
          .lrange(keys.list, -2 * maxTurns, -1),
      )) as [number, string | null, string[]]
      const firstIndex = Math.max(0, length - tail.length)
      const floor = Number(contextStart ?? 0)
      const messages = tail.map((json, offset) => parseMessage(json, firstIndex + offset))
      let start = messages.length
      let turns = 0
      while (start > 0 && turns < maxTurns && firstIndex + start - 1 >= floor) {
        start--
        if (messages[start]!.role !== 'assistant') turns++
      }
      return messages.slice(start)
    },

    async appendTurn(scope, turn, appendOptions = {}) {
      const gate = appendOptions.commitGate
      gate?.watch()
      try {
        checkConnected()
      } catch (error) {
        throw markWriteNotApplied(error)
      }
      validateCompletedTurn(scope, turn)
      const keys = keysOf(scope)
      const entries = turn.user ? [toJson(turn.user, turn.turn)] : []
      if (turn.assistant) entries.push(toJson(turn.assistant, turn.turn))
      // Sending the script is the commit: once sent, only Redis can say whether it ran.
      if (gate?.mayCommit() === false)
        throw markWriteNotApplied(new HistoryStoreError('the write was given up before it was sent'))
      // One script: both messages, the turn's index, the turn counter and the session set change
      // together or not at all.
      try {
        await client.eval(
          appendScript,
          4,
          keys.list,
          keys.meta,
          keys.sessions,
          keys.turns,
          Math.round(appendOptions.deadline ?? 0),
          scope.session,
          turn.turn,
          appendOptions.replaces ?? '',
          ...entries,
        )
      } catch (error) {
        const failure = new HistoryStoreError(`redis write failed: ${describeError(error)}`, { cause: error })
        throw isUnsent(error) ? markWriteNotApplied(failure) : failure
      }
    },

    async findTurn(scope, turn) {
      checkConnected()
      validateScope(scope)
      const keys = keysOf(scope)
      const index = await client.hget(keys.turns, turn)
      if (index === null) return []
      const first = Number(index)
      const messages = await client.lrange(keys.list, first, first + 1)
      return messages
        .map((json, offset) => parseMessage(json, first + offset))
        .filter((message) => message.turn === turn)
    },

    async redactTurn(scope, turn, marker) {
      validateScope(scope)
      const keys = keysOf(scope)
      // A write between the read and the set (rare: a session being cleared) is read again.
      for (let attempt = 0; attempt < 5; attempt++) {
        checkConnected()
        const index = await client.hget(keys.turns, turn)
        if (index === null) return 0
        const json = await client.lindex(keys.list, Number(index))
        if (json === null) return 0
        const { attachments: _attachments, ...message } = JSON.parse(json) as StoredJson
        if (message.turn !== turn || message.role !== 'user') return 0
        const replaced = JSON.stringify({ ...message, content: marker })
        if (Number(await client.eval(replaceMessageScript, 1, keys.list, index, json, replaced)) === 1)
          return 1
      }
      throw new HistoryStoreError('redis: the turn kept changing while its words were being replaced')
    },

    async settleTurn(scope, turn, deadline) {
      validateScope(scope)
      const { turns } = keysOf(scope)
      for (;;) {
        checkConnected()
        const answer = Number(await client.eval(settleScript, 1, turns, Math.round(deadline), turn))
        if (answer >= 0) return answer === 1
        await new Promise((resolve) => setTimeout(resolve, -answer))
      }
    },

    async listMessages(scope, listOptions = {}) {
      checkConnected()
      validateScope(scope)
      const keys = keysOf(scope)
      const limit = listOptions.limit
      if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) {
        if (Number.isInteger(limit)) return []
        throw new BadRequestError('listMessages: limit must be a whole number')
      }
      if (listOptions.beforeId !== undefined) {
        const beforeId = listOptions.beforeId
        if (!/^\d+$/.test(beforeId)) {
          throw new BadRequestError(
            `listMessages: beforeId must be a message id (digits), got ${JSON.stringify(beforeId)}`,
          )
        }
        const end = Number(beforeId) - 2
        if (end < 0) return []
        const start = limit === undefined ? 0 : Math.max(0, end - limit + 1)
        const page = await client.lrange(keys.list, start, end)
        return page.map((json, offset) => parseMessage(json, start + offset))
      }
      const [length, page] = (await runMulti(
        client
          .multi()
          .llen(keys.list)
          .lrange(keys.list, limit === undefined ? 0 : -limit, -1),
      )) as [number, string[]]
      const start = length - page.length
      return page.map((json, offset) => parseMessage(json, start + offset))
    },

    async countTurns(scope) {
      checkConnected()
      validateScope(scope)
      return Number((await client.hget(keysOf(scope).meta, 'contextTurns')) ?? 0)
    },

    async clearSession(scope) {
      checkConnected()
      validateScope(scope)
      const keys = keysOf(scope)
      const deadline = lateAfter()
      await failPastDeadline(deadline, () =>
        client.eval(clearScript, 4, keys.list, keys.meta, keys.turns, keys.sessions, deadline, scope.session),
      )
    },

    async resetContext(scope) {
      checkConnected()
      validateScope(scope)
      const keys = keysOf(scope)
      const deadline = lateAfter()
      await failPastDeadline(deadline, () => client.eval(resetScript, 2, keys.list, keys.meta, deadline))
    },

    async listSessions(character) {
      checkConnected()
      const members = await client.smembers(keysOf({ character, session: '' }).sessions)
      return members.sort()
    },

    async close() {
      if (!ownsClient || client.status === 'end') return
      // QUIT waits for an answer a frozen server never gives: hang up after a short wait.
      const hangUp = setTimeout(() => client.disconnect(), options.timeoutMs ?? 1000)
      try {
        await client.quit()
      } catch {
        client.disconnect()
      } finally {
        clearTimeout(hangUp)
      }
    },
  }
}
