/**
 * Zod schemas of every WebSocket frame and HTTP body the server accepts, so a bad one is answered
 * with `bad_request` and a message naming the field.
 */
import * as z from 'zod'
import { audienceMessagesSchema } from '../audience/audience-message-schema.js'

const sessionField = z.string().min(1).max(200).describe('Session id; default `default`.')
const imagesField = z.array(z.string().min(1)).max(16)
const characterField = z
  .string()
  .min(1)
  .max(200)
  .describe('The id of the character spoken to (a key of `characters`); default the default character.')
const speakerField = z
  .strictObject({
    id: z.string().min(1).max(200).describe('Stable id of the speaker (a user id of the chat platform).'),
    name: z.string().max(100).optional().describe('Display name; the id stands in when absent.'),
  })
  .describe('Who said it, in a group chat.')
/** Group-chat fields of an input: who speaks, and the images of the message replied to. */
const groupInputFields = {
  speaker: speakerField.optional(),
  reply_images: imagesField.optional(),
}

/** The client's id for an input: a resend with the same id is the same turn (PROTOCOL.md). */
const inputIdField = z
  .string()
  .min(1)
  .max(128)
  .describe('The client id of this input; a resend with the same id is answered as the same turn.')

const userInputFrameSchema = z.strictObject({
  type: z.literal('user_input'),
  session: sessionField.optional(),
  character: characterField.optional(),
  text: z.string(),
  emotion: z.string().max(100).optional(),
  images: imagesField.optional(),
  ...groupInputFields,
  id: inputIdField.optional(),
  preflight: z
    .boolean()
    .optional()
    .describe(
      'An early transcript: the turn is prepared and nothing is sent or stored until the final input (without preflight) adopts it.',
    ),
})

const interruptFrameSchema = z.strictObject({
  type: z.literal('interrupt'),
  session: sessionField.optional(),
  /** Only the turn with this character; absent: every character's turn in the session. */
  character: characterField.optional(),
  heard: z.string().optional(),
  /** Also cancel the session's queued turns (`on_new_input: queue`). */
  clear_queue: z.boolean().optional(),
})

/**
 * Opens a session with a character: a new one gets the character's greeting (stored as its first
 * reply), answered with an `opened` frame.
 */
const openFrameSchema = z.strictObject({
  type: z.literal('open'),
  session: sessionField.optional(),
  character: characterField.optional(),
})

/** A line said in the session that needs no reply; it reaches the model with the next input. */
const observeFrameSchema = z.strictObject({
  type: z.literal('observe'),
  session: sessionField.optional(),
  speaker: speakerField,
  text: z.string(),
  images: imagesField.optional(),
})

/** `POST /api/sessions/:id/open`: the `open` frame over HTTP. */
export const openBodySchema = z.strictObject({ character: characterField.optional() })

export const observeBodySchema = z.strictObject({
  speaker: speakerField,
  text: z.string(),
  images: imagesField.optional(),
})

/** Audience messages (group chat, live stream): observed, and answered as the session's selector decides. */
const audienceFrameSchema = z.strictObject({
  type: z.literal('audience'),
  session: sessionField.optional(),
  character: characterField.optional(),
  messages: audienceMessagesSchema,
})

/** Voice activity: a person in the session starts or stops speaking. */
const activityFrameSchema = z.strictObject({
  type: z.literal('activity'),
  session: sessionField.optional(),
  speaking: z.boolean(),
})

/**
 * `say`: the character says `text` as it is (no model call), in a turn the session's followers
 * hear. `emotion`: one of the character's, else its default. Text is bounded by the engine
 * (`conversation.max_input_chars`) and the frame or body size.
 */
const sayFields = {
  character: characterField.optional(),
  text: z.string(),
  emotion: z.string().max(100).optional(),
}
const sayFrameSchema = z.strictObject({
  type: z.literal('say'),
  session: sessionField.optional(),
  ...sayFields,
})

/** `POST /api/sessions/:id/say`: the `say` frame over HTTP. */
export const sayBodySchema = z.strictObject(sayFields)

/** `event`: something happened in the session (stored for the model); `respond: true` answers it now. */
const eventFields = {
  character: characterField.optional(),
  text: z.string(),
  respond: z.boolean().optional(),
}
const eventFrameSchema = z.strictObject({
  type: z.literal('event'),
  session: sessionField.optional(),
  ...eventFields,
})

/** `POST /api/sessions/:id/events`: the `event` frame over HTTP. */
export const eventBodySchema = z.strictObject(eventFields)

/** `POST /api/sessions/:id/audience`: the `audience` frame over HTTP. */
export const audienceBodySchema = z.strictObject({
  character: characterField.optional(),
  messages: audienceMessagesSchema,
})

export const clientFrameSchema = z.discriminatedUnion('type', [
  userInputFrameSchema,
  interruptFrameSchema,
  observeFrameSchema,
  openFrameSchema,
  audienceFrameSchema,
  activityFrameSchema,
  sayFrameSchema,
  eventFrameSchema,
])

/** The frame types a client may send, as error messages name them. */
export const clientFrameTypes = [
  'user_input',
  'observe',
  'interrupt',
  'open',
  'audience',
  'activity',
  'say',
  'event',
] as const
export type ClientFrame = z.infer<typeof clientFrameSchema>

export const chatBodySchema = z.strictObject({
  session: sessionField.optional(),
  character: characterField.optional(),
  text: z.string(),
  emotion: z.string().max(100).optional(),
  images: imagesField.optional(),
  ...groupInputFields,
  id: inputIdField.optional(),
})

export const previewBodySchema = z.strictObject({
  session: sessionField.optional(),
  character: characterField.optional(),
  text: z.string(),
  emotion: z.string().max(100).optional(),
  images: imagesField.optional(),
  ...groupInputFields,
})

const contentPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.union([z.string(), z.looseObject({ url: z.string() })]).optional(),
})

const openAIMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
})

const openAIFunctionToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64 characters'),
    description: z.string().nullable().optional(),
    parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
})

// Control characters, DEL, C1 and the line and paragraph separators: an end-user id becomes a
// session and a person id, which are written into log lines and listed on the page.
const endUserForbidden = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/**
 * OpenAI's end-user id (`user`, and its successor `safety_identifier`): it may name the session and,
 * for a named client, the person the turn is from (`client:<client name>:<id>`).
 */
export const openAIEndUserField = z
  .string()
  .min(1, 'at least 1 character')
  .max(200, 'at most 200 characters')
  .refine((value) => !endUserForbidden.test(value), 'must not hold control characters or line breaks')
  .refine((value) => value.trim() !== '', 'must not be blank')

/** The fields we read of an OpenAI chat completion request; the others are accepted and ignored. */
export const openAICompletionBodySchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(openAIMessageSchema).min(1),
  /** Function tools the client runs itself. */
  tools: z.array(openAIFunctionToolSchema).nullable().optional(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })])
    .nullable()
    .optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  user: openAIEndUserField.optional(),
  safety_identifier: openAIEndUserField.nullable().optional(),
})
export type OpenAICompletionBody = z.infer<typeof openAICompletionBodySchema>

export const addMemoryBodySchema = z.strictObject({
  scope: z.string().min(1).optional(),
  text: z.string().min(1),
  speaker: z.string().optional(),
  time: z.iso.datetime({ offset: true }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})

export const patchMemoryBodySchema = z.strictObject({
  text: z.string().min(1).optional(),
  speaker: z.string().optional(),
  time: z.iso.datetime({ offset: true }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})

export const addKnowledgeBodySchema = z.strictObject({
  name: z.string().min(1),
  text: z.string().min(1),
})

export const memorySearchQuerySchema = z.object({
  q: z.string().min(1),
  scope: z.string().min(1).optional(),
  k: z.coerce.number().int().min(1).max(100).optional(),
})

/** One line naming each problem by field: `text: expected string, received undefined`. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.')
      if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.join(', ')}`
      if (issue.code === 'invalid_union' && path === 'type') return 'type: unknown frame type'
      return path ? `${path}: ${issue.message}` : issue.message
    })
    .join('; ')
}
