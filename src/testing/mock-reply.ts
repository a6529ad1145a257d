/**
 * What the mock model server answers to one request, and how (see `startMockModelServer` for where
 * replies come from). Every field is optional; an empty reply streams the default character reply.
 * Script files (YAML or JSON) hold the same objects: `{ replies: [MockReply…], default: MockReply }`
 * or a bare list of replies.
 */
import * as z from 'zod'

const toolCallSchema = z.strictObject({
  id: z.string().optional().describe('Call id; generated when absent.'),
  name: z.string().min(1).describe('Function name.'),
  arguments: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .default({})
    .describe('Arguments object, or the raw JSON text to stream.'),
})

const insertSchema = z.strictObject({
  after: z.int().min(0).describe('Insert after this many events (0: before the first).'),
  raw: z.string().describe('Bytes written as they are, e.g. "garbage\\n\\n" or "data: {oops\\n\\n".'),
})

const mockReplySchema = z.strictObject({
  text: z.string().optional().describe('Reply text; absent: the default character reply.'),
  reasoning: z
    .string()
    .optional()
    .describe('Reasoning streamed before the text (reasoning_content / Anthropic thinking).'),
  toolCalls: z.array(toolCallSchema).optional().describe('Tool calls streamed after the text.'),
  chunkSize: z.int().positive().optional().describe('Characters per streamed chunk. Default 8.'),
  delayMs: z.number().min(0).optional().describe('Pause between chunks. Default 0.'),
  firstTokenDelayMs: z
    .number()
    .min(0)
    .optional()
    .describe('Pause after the headers, before the first chunk.'),
  status: z.int().min(100).max(599).optional().describe('HTTP status; not 2xx: answer with `body` instead.'),
  body: z.unknown().optional().describe('Error body (JSON value or text) sent with a non-2xx `status`.'),
  retryAfter: z.union([z.number(), z.string()]).optional().describe('`Retry-After` header value.'),
  headers: z.record(z.string(), z.string()).optional().describe('Extra response headers.'),
  breakAfterChunks: z.int().min(0).optional().describe('Destroy the connection after this many events.'),
  insert: z.array(insertSchema).optional().describe('Raw bytes inserted into the stream (faults, comments).'),
  omitDone: z.boolean().optional().describe('OpenAI: end cleanly without `data: [DONE]`.'),
  omitFinishReason: z.boolean().optional().describe('OpenAI: never send a finish_reason.'),
  streamError: z
    .strictObject({
      after: z.int().min(0).default(0),
      type: z.string().default('overloaded_error'),
      message: z.string().default('Overloaded'),
    })
    .optional()
    .describe('Anthropic: an `event: error` after this many events, then the end.'),
  finishReason: z.string().optional().describe('finish_reason / stop_reason; default from the content.'),
  usage: z
    .strictObject({
      inputTokens: z.int().min(0),
      outputTokens: z.int().min(0),
      cachedInputTokens: z.int().min(0).optional(),
    })
    .optional()
    .describe(
      'Usage to report (cachedInputTokens as prompt_tokens_details.cached_tokens / cache_read_input_tokens); default: counted characters of the given text; for the default character reply, tokens counted with a tokenizer.',
    ),
  fixture: z.string().optional().describe('Replay a recorded fixture file (path) instead of generating.'),
  interaction: z.int().min(0).optional().describe('Which interaction of a cassette fixture. Default 0.'),
  rawChunks: z.array(z.string()).optional().describe('Write these bytes as the body, one piece per chunk.'),
})

export type MockReply = z.input<typeof mockReplySchema>

const mockScriptSchema = z.union([
  z.array(mockReplySchema),
  z.strictObject({
    replies: z.array(mockReplySchema).default([]).describe('Used one per request, in order.'),
    default: mockReplySchema.optional().describe('Used once the replies are used up.'),
  }),
])

export interface MockScript {
  replies: MockReply[]
  default?: MockReply
}

/** Validates a script (from a file or a test), naming the path of anything wrong. */
export function parseMockScript(value: unknown, source = 'mock script'): MockScript {
  const result = mockScriptSchema.safeParse(value)
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    )
    throw new Error(`invalid ${source}:\n${issues.join('\n')}`)
  }
  return Array.isArray(result.data) ? { replies: result.data } : result.data
}

/** Validates one reply (from a header or a marker in a message). */
export function parseMockReply(value: unknown, source = 'mock reply'): MockReply {
  const result = mockReplySchema.safeParse(value)
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    )
    throw new Error(`invalid ${source}:\n${issues.join('\n')}`)
  }
  return result.data
}
