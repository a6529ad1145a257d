/**
 * The turn an OpenAI-compatible request asks for (`/v1/chat/completions`, `/v1/responses`), one
 * reader for both, under the request's client profile (plan-profile-turn.ts): the session, what of
 * the client's prompt is kept, the character (the profile's, else from `model`), a regenerate of
 * the last reply when the server keeps the history, the client's input id (`Idempotency-Key`),
 * the person a named client's `user` names (read-client-person.ts) and the reply's emotion writer
 * in the client's dialect; or the error response that refuses the request.
 */
import { randomUUID } from 'node:crypto'
import type { Context } from 'hono'
import type { GenerateInput } from '../../engine/types.js'
import type { ToolDefinition } from '../../shared/messages.js'
import { respondBadRequest } from '../error-response.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { selectModelCharacter } from '../select-model-character.js'
import type { ServerDependencies } from '../server-dependencies.js'
import { createClientEmotionWriter } from './create-client-emotion-writer.js'
import type { EmotionDialectWriter } from './create-emotion-dialect-writer.js'
import { readRegeneratedTurn } from './find-regenerated-turn.js'
import { type ClientProfile, planProfileTurn, readClientProfile } from './plan-profile-turn.js'
import { readClientPerson } from './read-client-person.js'
import type { OpenAITurn } from './read-openai-messages.js'
import type { RequiredToolChoice } from './read-tool-choice.js'
import { sendOpenAIError } from './send-openai-error.js'

export interface PrepareOpenAITurnOptions {
  context: Context
  dependencies: ServerDependencies
  /** The request's `model` (a character's id or name, or any model name). */
  model: string | undefined
  /** The request's `user` field. */
  user: string | undefined
  /** The request's `safety_identifier` field: the person's id when `user` is absent. */
  safetyIdentifier?: string | null | undefined
  turn: OpenAITurn
  /** Function tools the client runs itself (the request's `tools`). */
  clientTools?: ToolDefinition[]
  /** The call the request's `tool_choice` requires of the model. */
  toolChoice?: RequiredToolChoice
  /** Nothing of a session is read or stored, whatever the profile says (`store: false`). */
  stateless?: boolean
}

export type PrepareOpenAITurnResult =
  | {
      ok: true
      input: GenerateInput
      /** The model name the answer carries. */
      model: string
      stateless: boolean
      profile: ClientProfile
      /** The reply's emotion in the client's dialect (`profile.emotion`). */
      emotionWriter: EmotionDialectWriter
    }
  | { ok: false; response: Response }

export async function prepareOpenAITurn(options: PrepareOpenAITurnOptions): Promise<PrepareOpenAITurnResult> {
  const { context, dependencies, turn } = options
  // The named client's profile decides the session, what of its prompt is kept and the character.
  const profile = readClientProfile(context)
  const plan = planProfileTurn({
    profile,
    clientPrompt: turn.clientPrompt,
    user: options.user,
    sessionHeader: context.req.header('x-session-id'),
    model: options.model,
  })
  if (!plan.ok) return { ok: false, response: respondBadRequest(context, plan.message) }
  const { clientPrompt } = plan
  const stateless = plan.stateless || options.stateless === true
  // A stateless request still gets a session of its own for this request alone (turns of one
  // session interrupt each other), nothing read or stored.
  let session = `~v1~${randomUUID()}`
  if (plan.session !== undefined && !stateless) {
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, plan.session)
    if (resolved.response) return { ok: false, response: resolved.response }
    session = resolved.session
  }
  const config = dependencies.configManager.current()
  let character: string | undefined
  try {
    character = selectModelCharacter(config, plan.character)
  } catch (error) {
    const field = profile.character ? `client "${context.get('client')?.name}": profile.character` : 'model'
    return { ok: false, response: respondBadRequest(context, `${field}: ${(error as Error).message}`) }
  }
  const emotionWriter = createClientEmotionWriter(config, profile, character)
  // The store keeps this client's conversation: the same last question resent is a regenerate.
  // When the store cannot say, the request is refused rather than run as a new turn.
  let replaces: string | undefined
  if (plan.serverHistory && turn.clientPrompt && !stateless) {
    const regenerate = await readRegeneratedTurn({
      charpipe: dependencies.charpipe,
      session,
      character,
      text: turn.input.text,
      clientHistory: turn.clientPrompt.history,
      logger: dependencies.logger,
    })
    if (!regenerate.ok) {
      const { code, message } = regenerate.error
      return { ok: false, response: sendOpenAIError(context, { code, message }) }
    }
    replaces = regenerate.replaces
  }
  // The client's input id (a resend with the same key is the same turn, never stored twice).
  const inputId = context.req.header('idempotency-key')
  if (inputId !== undefined && (inputId === '' || inputId.length > 128)) {
    return {
      ok: false,
      response: respondBadRequest(context, 'Idempotency-Key: at most 128 characters, not empty'),
    }
  }
  // A named client's end user is a person of their own (memory.per_person), in every session.
  const person = readClientPerson({
    clientName: context.get('client')?.name,
    user: options.user,
    safetyIdentifier: options.safetyIdentifier,
  })
  const input: GenerateInput = {
    ...turn.input,
    session,
    ...(person !== undefined ? { person } : {}),
    ...(character ? { character } : {}),
    ...(clientPrompt ? { clientPrompt } : {}),
    ...(options.clientTools?.length ? { clientTools: options.clientTools } : {}),
    ...(options.toolChoice ? { toolChoice: options.toolChoice } : {}),
    ...(stateless ? { stateless: true } : {}),
    ...(inputId ? { id: inputId } : {}),
    ...(replaces ? { replaces } : {}),
  }
  const model = options.model || config.llm.model || config.llm.provider
  return { ok: true, input, model, stateless, profile, emotionWriter }
}
