/**
 * The host every connector is handed: the product's host behind the admission. A connector's
 * messages all reach its session's selector; each turn the server starts to answer them, and each
 * 1:1 turn, counts against the connector's `turns_per_minute` (past it, messages wait in the
 * selector's bounds until a turn may be paid). A message that is refused (another's session) or that the
 * engine refuses (an unknown or deleted character, a text too long, a role that is no role) is a
 * drop with a reason: counted, logged at most once per interval per reason, and never an exception
 * out of the connector's socket listener, which would end the process.
 */
import type { Charpipe, CharpipeAudience, CharpipeSessions } from '../engine/types.js'
import { audienceSourceOf } from './audience-source-of.js'
import type { Admission } from './create-admission.js'
import { createMinuteBudget } from './create-minute-budget.js'
import type { RateLimitedLog } from './create-rate-limited-log.js'
import type { ConnectorKind } from './find-session-connector.js'

/** What a connector is handed: audience messages in, the session's own turns followed, 1:1 turns run. */
export interface GuardedHost {
  readonly audience: Pick<CharpipeAudience, 'send'>
  readonly sessions: Pick<CharpipeSessions, 'follow'>
  run: Charpipe['run']
}

export interface GuardConnectorHostOptions {
  host: GuardedHost
  connector: { kind: ConnectorKind; name: string; index: number }
  /** The connector's `turns_per_minute`, read at every message. */
  readTurnsPerMinute: () => number
  admission: Admission
  log: RateLimitedLog
  now?: () => number
}

/** The reason of a refusal; an error whose message is not text (or a thrown non-error) is named generically. */
function describeError(error: unknown): string {
  const message = error instanceof Error ? (error.message as unknown) : undefined
  return typeof message === 'string' ? message.slice(0, 300) : 'the message was refused'
}

export function guardConnectorHost(options: GuardConnectorHostOptions): GuardedHost {
  const { host, connector, admission, log } = options
  const caller = {
    kind: 'connector' as const,
    name: connector.name,
    connectorKind: connector.kind,
    budget: createMinuteBudget({
      readPerMinute: options.readTurnsPerMinute,
      setting: `connectors.${connector.kind}[${connector.index}].turns_per_minute`,
      ...(options.now ? { now: options.now } : {}),
    }),
  }
  // One function for the connector, so a batch of its messages is charged one turn, not one each.
  const admitTurn = () => caller.budget.take()
  const source = audienceSourceOf(caller, undefined, '')
  const drop = (code: string, reason: string) =>
    log.warn(
      `${connector.name} ${code}`,
      { connector: connector.name, code, reason },
      'connector message dropped',
    )
  const audience: GuardedHost['audience'] = {
    send(input) {
      const session = typeof input?.session === 'string' ? input.session : ''
      const messages = Array.isArray(input?.messages) ? input.messages : []
      const admitted = admission.admit({ door: 'connector_audience', caller, session, messages })
      if (!admitted.ok) {
        drop(admitted.code, admitted.reason)
        return { accepted: 0, dropped: [] }
      }
      try {
        return host.audience.send({
          ...input,
          messages: admitted.messages ?? messages,
          admitTurn,
          source,
        })
      } catch (error) {
        admission.count('connector_audience', 'bad_request')
        drop('bad_request', describeError(error))
        return { accepted: 0, dropped: [] }
      }
    },
  }
  return {
    audience,
    run(input, runOptions) {
      const session = typeof input?.session === 'string' ? input.session : ''
      const admitted = admission.admit({ door: 'connector_turn', caller, session })
      if (!admitted.ok) {
        drop(admitted.code, admitted.reason)
        return Promise.resolve()
      }
      try {
        // A connector's 1:1 turn is the `connector` trigger, whoever wrote the connector: it may
        // end in silence when `conversation.silence.triggers` lists it.
        return host.run(input, { ...runOptions, source: 'connector' }).catch((error: unknown) => {
          admission.count('connector_turn', 'bad_request')
          drop('bad_request', describeError(error))
        })
      } catch (error) {
        admission.count('connector_turn', 'bad_request')
        drop('bad_request', describeError(error))
        return Promise.resolve()
      }
    },
    sessions: {
      follow(input) {
        try {
          // The connector's follow options (not live until a message, its link's reach, its own
          // audience settings) pass as they are: they only narrow what the session may do. Its idle
          // turns take from its own budget, as its replies do: a follower that admits them for free
          // would let them run past `turns_per_minute`.
          return host.sessions.follow({ ...input, admitIdle: () => caller.budget.take().ok })
        } catch (error) {
          drop('bad_request', describeError(error))
          return () => {}
        }
      },
    },
  }
}
