/**
 * The fields of an Open Responses request (`POST /v1/responses`) that the server reads; the others
 * are accepted and ignored, as OpenAI-compatible servers do. Input items are checked here for their
 * shape only: read-response-input.ts decides what each means for the turn.
 */
import * as z from 'zod'
import { openAIEndUserField } from '../request-schemas.js'

const inputPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.string().nullable().optional(),
})

const messageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(inputPartSchema)]),
})

const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1).max(64),
  name: z.string().min(1).max(64),
  arguments: z.string(),
})

const functionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1).max(64),
  output: z.union([z.string(), z.array(inputPartSchema)]),
})

/** Reasoning items and item references carry nothing a character's turn reads; accepted and skipped. */
const skippedItemSchema = z.looseObject({ type: z.enum(['reasoning', 'item_reference']) })

const responseInputItemSchema = z.union([
  messageItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  skippedItemSchema,
])
export type ResponseInputItem = z.infer<typeof responseInputItemSchema>

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64 characters'),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
})
export type FunctionToolParam = z.infer<typeof functionToolSchema>

export const responseRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(responseInputItemSchema)]),
  instructions: z.string().nullable().optional(),
  tools: z.array(functionToolSchema).nullable().optional(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })])
    .optional(),
  previous_response_id: z.string().min(1).max(200).nullable().optional(),
  store: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  user: openAIEndUserField.optional(),
  safety_identifier: openAIEndUserField.nullable().optional(),
  /** Developer metadata, echoed back (16 keys at most, as the spec says). */
  metadata: z.record(z.string().max(64), z.string().max(512)).nullable().optional(),
  temperature: z.number().nullable().optional(),
  top_p: z.number().nullable().optional(),
  max_output_tokens: z.number().int().nullable().optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
})
export type ResponseRequest = z.infer<typeof responseRequestSchema>
