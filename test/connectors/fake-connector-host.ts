/**
 * A connector's host that records what a connector hands it (audience batches, 1:1 turns) and lets
 * a test play the selector: `finishTurn` delivers an `llm_done` to the session's followers, as the
 * engine does when an audience turn ends.
 */

import type { FollowOptions } from '../../src/audience/types.js'
import type { ConnectorHost } from '../../src/connectors/index.js'
import type { AudienceInput, GenerateInput } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'

export interface FakeConnectorHost extends ConnectorHost {
  audienceCalls: AudienceInput[]
  runCalls: GenerateInput[]
  followers(session: string): number
  /** The options each session was followed with (liveness, reach, the connector's audience). */
  followOptions: Map<string, FollowOptions | undefined>
  finishTurn(session: string, text: string, replyingTo?: string[]): void
}

export function createFakeConnectorHost(
  options: { reply?: (input: GenerateInput) => string } = {},
): FakeConnectorHost {
  const audienceCalls: FakeConnectorHost['audienceCalls'] = []
  const runCalls: GenerateInput[] = []
  const listeners = new Map<string, Set<(event: never) => void>>()
  const followOptions = new Map<string, FollowOptions | undefined>()
  let turn = 0
  return {
    audienceCalls,
    runCalls,
    audience: {
      send(input) {
        audienceCalls.push(input)
        return { accepted: input.messages.length, dropped: [] }
      },
    },
    followOptions,
    sessions: {
      follow({ session, onEvent, ...options }) {
        followOptions.set(session, options)
        const set = listeners.get(session) ?? new Set()
        set.add(onEvent as (event: never) => void)
        listeners.set(session, set)
        return () => set.delete(onEvent as (event: never) => void)
      },
    },
    async run(input, { onEvent }) {
      runCalls.push(input)
      turn += 1
      const text = options.reply?.(input) ?? `reply to ${input.text}`
      const done: CharpipeEvent = {
        type: 'llm_done',
        session: input.session ?? 'default',
        turn: `t${turn}`,
        text,
        emotion: 'neutral',
        interrupted: false,
      }
      onEvent(done)
    },
    followers: (session) => listeners.get(session)?.size ?? 0,
    finishTurn(session, text, replyingTo) {
      turn += 1
      const event = {
        type: 'llm_done',
        session,
        turn: `t${turn}`,
        text,
        emotion: 'neutral',
        interrupted: false,
        trigger: replyingTo ? 'audience' : 'idle',
        ...(replyingTo ? { replying_to: replyingTo } : {}),
      }
      for (const listener of listeners.get(session) ?? []) (listener as (event: unknown) => void)(event)
    },
  }
}
