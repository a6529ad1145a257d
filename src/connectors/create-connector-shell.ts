/**
 * What every connector is around its wire code: its state and counts for `GET /api/connectors`,
 * the sessions it follows (only finished, uninterrupted replies with text, and only while its link
 * can carry them), the messages it hands to the host, and one guard around everything it receives.
 * An inbound event or frame that cannot be read (conversion included), or code of the connector's
 * that throws or rejects on one, is a counted refusal with a reason and a warning written at most
 * once per interval per reason, never an exception out of a socket listener, which would end the
 * process. Every text it writes or shows (log lines, `error`, `notice`) has the connector's
 * secrets masked, even when the remote side echoed one back.
 */
import { createRateLimitedLog } from '../admission/index.js'
import type { FollowOptions } from '../audience/types.js'
import type { Logger } from '../shared/logger.js'
import { redactText } from '../shared/redact.js'
import {
  type AudienceMessageInput,
  type ConnectorHost,
  type ConnectorStatus,
  readReplyingTo,
} from './connector-host.js'

type AudienceInput = Parameters<ConnectorHost['audience']['send']>[0]

export interface CreateConnectorShellOptions {
  kind: ConnectorStatus['kind']
  name: string
  /** The character id the connector speaks as (empty: the default character). */
  character: string
  host: ConnectorHost
  logger: Logger
  /** Configured secret values (a token, a cookie and each of its values): masked everywhere. */
  secrets: readonly string[]
  /** How log lines name the link: `the OneBot link`, `the Twitch chat connection`. */
  linkName: string
  /** The connector's own `audience` settings, passed to every session it follows. */
  audience?: FollowOptions['audience']
  /** Whether its link can carry a message now: no idle turn runs, and no reply is sent, while not. */
  reachable: () => boolean
  /** The sessions shown in its status. */
  listSessions: () => string[]
  /** Platform events it counts without a turn; when given, `counted` is always in the status. */
  counted?: readonly string[]
  /** What the streamer should know while it runs (a room offline, replies refused); masked. */
  readNotice?: () => string | undefined
  /** Where the warnings' interval is read from. @default Date.now */
  now?: () => number
}

/** A finished reply of a followed session, ready to be sent. */
export interface FollowedReply {
  /** The reply, trimmed; never empty. */
  text: string
  /** The ids of the audience messages it answers. */
  replyingTo: string[]
}

export interface ConnectorShell {
  readonly state: ConnectorStatus['state']
  /** The last failure, secrets masked. */
  readonly error: string | undefined
  readonly closed: boolean
  markReady(): void
  /** The link is down or refused: `failed`, with `reason` (masked) as the error. */
  markFailed(reason: string): void
  /** Sets or clears the error without changing the state. */
  setError(reason: string | undefined): void
  mask(text: string): string
  /** A warning written at most once per interval per `kind`; its fields' texts masked. */
  warn(kind: string, fields: Record<string, unknown>, message: string): void
  /** A warning written every time (a state change, a reply dropped), masked. */
  log(level: 'info' | 'warn', fields: Record<string, unknown>, message: string): void
  countIn(): void
  countOut(): void
  /** A platform event counted without a turn. */
  count(what: string): void
  /** An inbound input that cannot be read: counted under `reason`, warned about (rate-limited). */
  refuse(reason: string, detail: string): void
  /**
   * `handler` behind the one guard: what it throws, or the promise it returns rejects with, is a
   * refusal counted under `unreadable` (the input could not be read), never an exception.
   */
  guard<Args extends unknown[]>(handler: (...args: Args) => unknown): (...args: Args) => void
  /** Hands messages to a session's selector; a refusal of the host is counted, never thrown. */
  offer(input: { session: string; messages: AudienceMessageInput[]; weigh?: AudienceInput['weigh'] }): void
  /**
   * Follows a session: `onReply` gets each finished reply with text. Not live by being followed: a
   * session is live once a message arrives there. A reply made while the link is down is dropped
   * and logged: sent later it would arrive out of its moment, with others in a burst.
   */
  follow(options: { session: string; postsReplies?: boolean; onReply: (reply: FollowedReply) => void }): void
  /** Logs a reply dropped because the link cannot carry it. */
  dropReply(fields?: Record<string, unknown>): void
  /** Describes an error for a log line or a status: its message, masked and cut short. */
  describe(error: unknown): string
  status(): ConnectorStatus
  /** Runs `cleanup` on close (after the sessions are unfollowed). */
  onClose(cleanup: () => void): void
  close(): Promise<void>
}

const maxDetailChars = 300

export function createConnectorShell(options: CreateConnectorShellOptions): ConnectorShell {
  const { host, logger, name } = options
  const secrets = options.secrets.filter((secret) => secret.length >= 4)
  const rateLimited = createRateLimitedLog({ logger, ...(options.now ? { now: options.now } : {}) })
  const counted: Record<string, number> = Object.fromEntries((options.counted ?? []).map((key) => [key, 0]))
  const malformed: Record<string, number> = {}
  const unfollows: (() => void)[] = []
  const cleanups: (() => void)[] = []
  let state: ConnectorStatus['state'] = 'connecting'
  let error: string | undefined
  let messagesIn = 0
  let messagesOut = 0
  let messagesRefused = 0
  let closed = false

  const mask = (text: string) => redactText(text, secrets)
  const maskFields = (fields: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? mask(value) : value]),
    )
  const describe = (cause: unknown) => {
    const message = cause instanceof Error ? cause.message : undefined
    return mask(typeof message === 'string' ? message : 'a value that is not an error').slice(
      0,
      maxDetailChars,
    )
  }
  const warn = (kind: string, fields: Record<string, unknown>, message: string) =>
    rateLimited.warn(kind, { connector: name, ...maskFields(fields) }, message)
  const refuse = (reason: string, detail: string) => {
    // Reasons are a closed set of codes; a few dozen keys at most.
    malformed[reason] = (malformed[reason] ?? 0) + 1
    warn(`malformed ${reason}`, { reason, problem: detail }, `${options.linkName} sent what cannot be read`)
  }
  const log = (level: 'info' | 'warn', fields: Record<string, unknown>, message: string) =>
    logger[level]({ connector: name, ...maskFields(fields) }, message)
  const dropReply = (fields: Record<string, unknown> = {}) =>
    log('warn', fields, `reply dropped: ${options.linkName} is down`)

  const guard =
    <Args extends unknown[]>(handler: (...args: Args) => unknown) =>
    (...args: Args): void => {
      try {
        const result = handler(...args)
        if (
          result !== undefined &&
          result !== null &&
          typeof (result as Promise<unknown>).then === 'function'
        )
          Promise.resolve(result).catch((cause: unknown) => refuse('unreadable', describe(cause)))
      } catch (cause) {
        refuse('unreadable', describe(cause))
      }
    }

  const refuseMessage = (cause: unknown) => {
    messagesRefused += 1
    warn('audience refused', { reason: describe(cause) }, 'audience message refused')
  }

  return {
    get state() {
      return state
    },
    get error() {
      return error
    },
    get closed() {
      return closed
    },
    markReady() {
      state = 'ready'
      error = undefined
    },
    markFailed(reason) {
      state = 'failed'
      error = mask(reason)
    },
    setError(reason) {
      error = reason === undefined ? undefined : mask(reason)
    },
    mask,
    warn,
    log,
    countIn: () => {
      messagesIn += 1
    },
    countOut: () => {
      messagesOut += 1
    },
    count(what) {
      counted[what] = (counted[what] ?? 0) + 1
    },
    refuse,
    guard,
    offer({ session, messages, weigh }) {
      // A refusal (a full queue, a turn limit) drops these messages; it never throws out of a listener.
      try {
        const sent = host.audience.send({
          session,
          character: options.character || undefined,
          messages,
          ...(weigh ? { weigh } : {}),
        })
        void Promise.resolve(sent).catch(refuseMessage)
      } catch (cause) {
        refuseMessage(cause)
      }
    },
    follow({ session, postsReplies = true, onReply }) {
      const unfollow = host.sessions.follow({
        live: false,
        reachable: options.reachable,
        ...(options.audience ? { audience: options.audience } : {}),
        session,
        onEvent: guard((event) => {
          if (!postsReplies || event.type !== 'llm_done' || event.interrupted === true) return
          const text = typeof event.text === 'string' ? event.text.trim() : ''
          if (text === '') return
          if (!options.reachable()) return dropReply()
          onReply({ text, replyingTo: readReplyingTo(event) })
        }),
      })
      unfollows.push(unfollow)
    },
    dropReply,
    describe,
    status() {
      const notice = options.readNotice?.()
      return {
        name,
        kind: options.kind,
        character: options.character,
        state,
        ...(error ? { error } : {}),
        ...(notice ? { notice: mask(notice) } : {}),
        sessions: options.listSessions(),
        messages_in: messagesIn,
        messages_out: messagesOut,
        ...(messagesRefused > 0 ? { messages_refused: messagesRefused } : {}),
        ...(Object.keys(malformed).length > 0 ? { malformed: { ...malformed } } : {}),
        ...(options.counted ? { counted: { ...counted } } : {}),
      }
    },
    onClose(cleanup) {
      cleanups.push(cleanup)
    },
    async close() {
      closed = true
      for (const unfollow of unfollows.splice(0)) unfollow()
      for (const cleanup of cleanups.splice(0)) cleanup()
    },
  }
}
