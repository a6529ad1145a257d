/**
 * How an OpenAI-compatible request becomes a turn under its client's profile
 * (`server.clients[].profile`; a request without a named client has the default profile, which is
 * the endpoints' behaviour for every client before profiles): which session it is, whether it is
 * stateless, which of the client's own prompt is kept, and which character answers. Shared by
 * `/v1/chat/completions` and `/v1/responses`; pure, so both routes and their tests see one rule.
 */
import type { Context } from 'hono'
import type { ServerClientConfig } from '../../config/schema.js'
import type { ClientPrompt } from '../../context/types.js'

export type ClientProfile = ServerClientConfig['profile']

/** The session of a request that names none (never the web page's `default`). */
export const unnamedOpenAISession = 'openai'

/** The profile of a request without a named client: the endpoints as they were before profiles. */
export const defaultClientProfile: ClientProfile = Object.freeze({
  character: '',
  session: 'auto',
  persona: 'client',
  history: 'client',
  emotion: 'field',
  emotion_names: Object.freeze({}) as Record<string, string>,
})

/** The profile of the request's named client (`server.clients`), or the default one. */
export function readClientProfile(context: Context): ClientProfile {
  return context.get('client')?.profile ?? defaultClientProfile
}

export interface PlanProfileTurnOptions {
  profile: ClientProfile
  /** The client's own prompt as the request carries it (system messages, earlier turns), if any. */
  clientPrompt: ClientPrompt | undefined
  /** The body's `user` field. */
  user: string | undefined
  /** The `X-Session-Id` header. */
  sessionHeader: string | undefined
  /** The request's `model`. */
  model: string | undefined
}

export type PlanProfileTurnResult =
  | {
      ok: true
      /** The session the request names in its client's namespace; undefined when stateless. */
      session: string | undefined
      /** Nothing of a session is read or stored: a client keeping its own conversation in no session. */
      stateless: boolean
      /** What of the client's prompt reaches the model; undefined: the character's and the store's. */
      clientPrompt: ClientPrompt | undefined
      /** The character asked for (id or name): the profile's, else the request's `model`. */
      character: string | undefined
      /** Only the last user message is new input; the store keeps the conversation. */
      serverHistory: boolean
    }
  | { ok: false; message: string }

function nameSession(options: PlanProfileTurnOptions): PlanProfileTurnResult | string | undefined {
  const { profile, user, sessionHeader } = options
  switch (profile.session) {
    case 'client':
      return unnamedOpenAISession
    case 'user':
      return (
        user || {
          ok: false,
          message: 'user: this client\'s profile takes the session from the body\'s "user" field; send one',
        }
      )
    case 'header':
      return (
        sessionHeader || {
          ok: false,
          message: "X-Session-Id: this client's profile takes the session from this header; send one",
        }
      )
    default:
      return sessionHeader || user || undefined
  }
}

/** What of the client's prompt the profile keeps: its system text (`persona: client`) and its turns (`history: client`). */
function keepClientPrompt(
  profile: ClientProfile,
  prompt: ClientPrompt | undefined,
): ClientPrompt | undefined {
  if (!prompt) return undefined
  const system = profile.persona === 'client' ? prompt.system : undefined
  const history = profile.history === 'client' ? (prompt.history ?? []) : undefined
  if (system === undefined && history === undefined) return undefined
  return { ...(system !== undefined ? { system } : {}), ...(history !== undefined ? { history } : {}) }
}

export function planProfileTurn(options: PlanProfileTurnOptions): PlanProfileTurnResult {
  const { profile } = options
  const named = nameSession(options)
  if (typeof named === 'object') return named
  const clientPrompt = keepClientPrompt(profile, options.clientPrompt)
  const serverHistory = profile.history === 'server'
  // Without a session, a client that keeps its own conversation is stateless: nothing is read or
  // stored. A client whose history the server keeps always has a session.
  const stateless = !serverHistory && named === undefined && clientPrompt !== undefined
  return {
    ok: true,
    session: stateless ? undefined : (named ?? unnamedOpenAISession),
    stateless,
    clientPrompt,
    character: profile.character || options.model || undefined,
    serverHistory,
  }
}
