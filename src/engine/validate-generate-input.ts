/**
 * Checks what a caller passes to `generate`/`inspect.preview` and fills the session default, naming the
 * field that is wrong (inputs come from WebSocket frames and HTTP bodies, so anything can arrive).
 */
import type { ClientPrompt, ClientPromptMessage, Speaker, TurnInput } from '../context/types.js'
import { parsePersonId } from '../memory/people/parse-person-id.js'
import { BadRequestError } from '../shared/errors.js'
import type { ToolCall, ToolDefinition } from '../shared/messages.js'
import type { GenerateInput, ObserveInput } from './types.js'

// A client names at most 200 characters; a keyed client's session carries its namespace too.
const maxSessionLength = 256
const maxSpeakerIdLength = 200
const maxCharacterLength = 200
const maxSpeakerNameLength = 100
/** Longest client input id (PROTOCOL.md: input ids). */
export const maxInputIdLength = 128

/** The client's id for an input: a non-empty string of at most 128 characters, or none. */
function checkInputIdField(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value === '' || value.length > maxInputIdLength) {
    throw new BadRequestError(`id must be a non-empty string of at most ${maxInputIdLength} characters`)
  }
  return value
}

/** A session id as callers give it (`default` when absent). */
export function validateSessionField(value: unknown): string {
  const session = value ?? 'default'
  if (typeof session !== 'string' || session.trim() === '' || session.length > maxSessionLength) {
    throw new BadRequestError(`session must be a non-empty string of at most ${maxSessionLength} characters`)
  }
  // NUL separates a session from its character where one string names both (turn lanes, locks).
  if (session.includes('\u0000')) throw new BadRequestError('session must not contain a NUL character')
  return session
}

/** The character asked for: a non-empty string (whether it exists is the engine's to say). */
export function checkCharacterField(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value === '' || value.length > maxCharacterLength) {
    throw new BadRequestError(
      `character must be a non-empty string of at most ${maxCharacterLength} characters`,
    )
  }
  return value
}

function checkSpeaker(value: unknown): Speaker | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError('speaker must be an object {id, name?}')
  }
  const { id, name, ...rest } = value as Record<string, unknown>
  const unknownKey = Object.keys(rest)[0]
  if (unknownKey !== undefined) throw new BadRequestError(`speaker.${unknownKey} is not a known field`)
  if (typeof id !== 'string' || id.trim() === '' || id.length > maxSpeakerIdLength) {
    throw new BadRequestError(
      `speaker.id must be a non-empty string of at most ${maxSpeakerIdLength} characters`,
    )
  }
  if (
    name !== undefined &&
    name !== null &&
    (typeof name !== 'string' || name.length > maxSpeakerNameLength)
  ) {
    throw new BadRequestError(`speaker.name must be a string of at most ${maxSpeakerNameLength} characters`)
  }
  return { id, ...(typeof name === 'string' && name !== '' ? { name } : {}) }
}

/** A person id as `parsePersonId` reads it, or none. */
function checkPersonField(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new BadRequestError('person must be a person id string')
  const parsed = parsePersonId(value)
  if (!parsed.ok) throw new BadRequestError(`person: ${parsed.problem}`)
  return value
}

function checkStringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw new BadRequestError(`${field} must be a list of non-empty strings`)
  }
  return value.length > 0 ? [...value] : undefined
}

export interface ValidateGenerateInputOptions {
  /** Longest `text`, in characters (`conversation.max_input_chars`). */
  maxInputChars?: number
}

export function validateGenerateInput(
  input: GenerateInput | undefined,
  options: ValidateGenerateInputOptions = {},
): TurnInput {
  if (!input || typeof input !== 'object')
    throw new BadRequestError('input must be an object with a text field')
  const session = validateSessionField(input.session)
  if (typeof input.text !== 'string') throw new BadRequestError('text must be a string')
  if (options.maxInputChars !== undefined && input.text.length > options.maxInputChars) {
    throw new BadRequestError(
      `text is ${input.text.length} characters, longer than conversation.max_input_chars (${options.maxInputChars})`,
    )
  }
  if (input.emotion !== undefined && input.emotion !== null && typeof input.emotion !== 'string') {
    throw new BadRequestError('emotion must be a string')
  }
  const images = checkStringList(input.images, 'images')
  const files = checkStringList(input.files, 'files')
  const replyImages =
    input.replyImages !== undefined
      ? checkStringList(input.replyImages, 'replyImages')
      : checkStringList(input.reply_images, 'reply_images')
  const speaker = checkSpeaker(input.speaker)
  const person = checkPersonField(input.person)
  const character = checkCharacterField(input.character)
  const id = checkInputIdField(input.id)
  if (input.text.trim() === '' && !images && !files && !replyImages) {
    throw new BadRequestError('text is empty and there are no images or files')
  }
  return {
    session,
    ...(character ? { character } : {}),
    text: input.text,
    ...(input.emotion ? { emotion: input.emotion } : {}),
    ...(images ? { images } : {}),
    ...(files ? { files } : {}),
    ...(replyImages ? { replyImages } : {}),
    ...(speaker ? { speaker } : {}),
    ...(person ? { person } : {}),
    ...(id ? { id } : {}),
    ...(input.clientPrompt ? { clientPrompt: checkClientPrompt(input.clientPrompt) } : {}),
    ...(input.clientTools?.length ? { clientTools: checkClientTools(input.clientTools) } : {}),
    ...(input.toolChoice !== undefined ? { toolChoice: checkToolChoice(input.toolChoice) } : {}),
    ...(input.stateless === true ? { stateless: true } : {}),
    ...(input.replaces !== undefined ? { replaces: checkReplaces(input.replaces) } : {}),
  }
}

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/

function checkToolCalls(value: unknown, where: string): ToolCall[] {
  if (!Array.isArray(value)) throw new BadRequestError(`${where} must be a list of {id, name, arguments}`)
  return value.map((call, index) => {
    if (typeof call?.id !== 'string' || typeof call.name !== 'string' || !toolNamePattern.test(call.name))
      throw new BadRequestError(`${where}.${index} must be {id, name, arguments} with a tool name`)
    return { id: call.id, name: call.name, arguments: call.arguments }
  })
}

function checkClientMessage(message: ClientPromptMessage | undefined, where: string): ClientPromptMessage {
  if (message?.role === 'tool') {
    if (typeof message.content !== 'string' || typeof message.toolCallId !== 'string')
      throw new BadRequestError(`${where} must be {role: tool, content: string, toolCallId: string}`)
    return { role: 'tool', content: message.content, toolCallId: message.toolCallId }
  }
  if ((message?.role !== 'user' && message?.role !== 'assistant') || typeof message.content !== 'string')
    throw new BadRequestError(`${where} must be {role: user|assistant, content: string}`)
  const toolCalls =
    message.toolCalls === undefined ? undefined : checkToolCalls(message.toolCalls, `${where}.toolCalls`)
  return { role: message.role, content: message.content, ...(toolCalls?.length ? { toolCalls } : {}) }
}

function checkClientTools(value: unknown): ToolDefinition[] {
  if (!Array.isArray(value))
    throw new BadRequestError('clientTools must be a list of {name, description, parameters}')
  return value.map((tool, index) => {
    if (typeof tool?.name !== 'string' || !toolNamePattern.test(tool.name))
      throw new BadRequestError(`clientTools.${index}.name: letters, digits, _ and - only, at most 64`)
    if (tool.parameters !== undefined && (typeof tool.parameters !== 'object' || tool.parameters === null))
      throw new BadRequestError(`clientTools.${index}.parameters must be a JSON Schema object`)
    return {
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : '',
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    }
  })
}

function checkToolChoice(value: unknown): 'required' | { name: string } {
  if (value === 'required') return value
  const name = (value as { name?: unknown } | null)?.name
  if (typeof name !== 'string' || !toolNamePattern.test(name))
    throw new BadRequestError('toolChoice must be "required" or {name} naming a tool')
  return { name }
}

function checkReplaces(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 128)
    throw new BadRequestError('replaces must be a turn id of 1 to 128 characters')
  return value
}

function checkClientPrompt(value: unknown): ClientPrompt {
  const prompt = value as Partial<ClientPrompt>
  if (
    typeof prompt !== 'object' ||
    prompt === null ||
    (prompt.history !== undefined && !Array.isArray(prompt.history))
  )
    throw new BadRequestError('clientPrompt must be an object {system?, history?: [{role, content}]}')
  if (prompt.system !== undefined && typeof prompt.system !== 'string')
    throw new BadRequestError('clientPrompt.system must be a string')
  const history = prompt.history?.map((message, index) =>
    checkClientMessage(message, `clientPrompt.history.${index}`),
  )
  if (prompt.toolRounds !== undefined && !Array.isArray(prompt.toolRounds))
    throw new BadRequestError('clientPrompt.toolRounds must be a list of messages')
  const toolRounds = (prompt.toolRounds ?? []).map((message, index) =>
    checkClientMessage(message, `clientPrompt.toolRounds.${index}`),
  )
  return {
    ...(prompt.system?.trim() ? { system: prompt.system } : {}),
    ...(history ? { history } : {}),
    ...(toolRounds.length ? { toolRounds } : {}),
  }
}

export interface ValidatedObserveInput {
  session: string
  speaker: Speaker
  text: string
  images?: string[]
}

/** Checks a line to observe (`observe` frame, `POST /api/sessions/:id/observe`, library `sessions.observe`). */
export function validateObserveInput(
  input: ObserveInput | undefined,
  options: ValidateGenerateInputOptions = {},
): ValidatedObserveInput {
  if (!input || typeof input !== 'object')
    throw new BadRequestError('an observed line must be an object {speaker, text, images?}')
  const session = validateSessionField(input.session)
  const speaker = checkSpeaker(input.speaker)
  if (!speaker) throw new BadRequestError('speaker is required for an observed line')
  if (typeof input.text !== 'string') throw new BadRequestError('text must be a string')
  if (options.maxInputChars !== undefined && input.text.length > options.maxInputChars) {
    throw new BadRequestError(
      `text is ${input.text.length} characters, longer than conversation.max_input_chars (${options.maxInputChars})`,
    )
  }
  const images = checkStringList(input.images, 'images')
  if (input.text.trim() === '' && !images) throw new BadRequestError('text is empty and there are no images')
  return { session, speaker, text: input.text, ...(images ? { images } : {}) }
}
