/**
 * The turn an OpenAI-compatible request asks for (`/v1/chat/completions`, `/v1/responses`), one
 * reader for both: the session (the `X-Session-Id` header, else the `user` field, in the namespace
 * of the request's client), the character (from `model`), the client's input id (`Idempotency-Key`),
 * or the error response that refuses the request. A request naming no session never lands in
 * another client's conversation: with its own history it is stateless (nothing read or stored),
 * with only its new message it uses the session `openai` of its client.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from 'hono'
import type { GenerateInput } from '../../engine/types.js'
import type { ToolDefinition } from '../../shared/messages.js'
import { respondBadRequest } from '../error-response.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { selectModelCharacter } from '../select-model-character.js'
import type { ServerDependencies } from '../server-dependencies.js'
import type { OpenAITurn } from './read-openai-messages.js'

/** The session of a client that names none and sends one message (never the web page's `default`). */
const unnamedSession = 'openai'

export interface PrepareOpenAITurnOptions {
  context: Context
  dependencies: ServerDependencies
  /** The request's `model` (a character's id or name, or any model name). */
  model: string | undefined
  /** The request's `user` field. */
  user: string | undefined
  turn: OpenAITurn
  /** Function tools the client runs itself (the request's `tools`). */
  clientTools?: ToolDefinition[]
}

export type PrepareOpenAITurnResult =
  | { ok: true; input: GenerateInput; model: string; stateless: boolean }
  | { ok: false; response: Response }

export function prepareOpenAITurn(options: PrepareOpenAITurnOptions): PrepareOpenAITurnResult {
  const { context, dependencies, turn } = options
  const named = context.req.header('x-session-id') || options.user
  // Without a session, a client that keeps its own history is stateless: a session of its own
  // for this request alone (turns of one session interrupt each other), nothing read or stored.
  const stateless = !named && turn.clientPrompt !== undefined
  let session = `~v1~${randomUUID()}`
  if (!stateless) {
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, named || unnamedSession)
    if (resolved.response) return { ok: false, response: resolved.response }
    session = resolved.session
  }
  const config = dependencies.configManager.current()
  let character: string | undefined
  try {
    character = selectModelCharacter(config, options.model)
  } catch (error) {
    return { ok: false, response: respondBadRequest(context, `model: ${(error as Error).message}`) }
  }
  // The client's input id (a resend with the same key is the same turn, never stored twice).
  const inputId = context.req.header('idempotency-key')
  if (inputId !== undefined && (inputId === '' || inputId.length > 128)) {
    return {
      ok: false,
      response: respondBadRequest(context, 'Idempotency-Key: at most 128 characters, not empty'),
    }
  }
  const input: GenerateInput = {
    ...turn.input,
    session,
    ...(character ? { character } : {}),
    ...(turn.clientPrompt ? { clientPrompt: turn.clientPrompt } : {}),
    ...(options.clientTools?.length ? { clientTools: options.clientTools } : {}),
    ...(stateless ? { stateless: true } : {}),
    ...(inputId ? { id: inputId } : {}),
  }
  const model = options.model || config.llm.model || config.llm.provider
  return { ok: true, input, model, stateless }
}
