/**
 * The response resource of Open Responses (`ResponseResource`), with every field the spec requires:
 * what the request asked for echoed back (tools, instructions, sampling), the output items, the
 * status and its details, usage, and `metadata` with the character's emotion.
 */
import type { ResponseRequest } from './response-request-schema.js'

export interface OutputTextPart {
  type: 'output_text'
  text: string
  annotations: []
  logprobs: []
}

export interface MessageOutputItem {
  type: 'message'
  id: string
  status: 'in_progress' | 'completed' | 'incomplete'
  role: 'assistant'
  content: OutputTextPart[]
}

export interface FunctionCallOutputItem {
  type: 'function_call'
  id: string
  call_id: string
  name: string
  arguments: string
  status: 'in_progress' | 'completed' | 'incomplete'
}

export interface ReasoningTextPart {
  type: 'reasoning_text'
  text: string
}

/** The character's inner thought (`llm_thought`): reasoning, never the reply's text. */
export interface ReasoningOutputItem {
  type: 'reasoning'
  id: string
  summary: []
  content: ReasoningTextPart[]
}

export type ResponseOutputItem = MessageOutputItem | FunctionCallOutputItem | ReasoningOutputItem

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed'

export interface ResponseUsage {
  input_tokens: number
  output_tokens: number
  total_tokens: number
  input_tokens_details: { cached_tokens: number }
  output_tokens_details: { reasoning_tokens: number }
}

export interface ResponseResourceOptions {
  id: string
  /** Seconds since the epoch. */
  createdAt: number
  model: string
  request: ResponseRequest
  status: ResponseStatus
  output: ResponseOutputItem[]
  /** Seconds since the epoch, once completed. */
  completedAt?: number
  usage?: ResponseUsage
  error?: { code: string; message: string }
  /** Why an incomplete response stopped (`interrupted`: barge-in or the session's next input). */
  incompleteReason?: string
  emotion?: string
  /** Whether the response is kept for `previous_response_id` and `GET /v1/responses/:id`. */
  store: boolean
}

/** The spec allows 16 metadata keys: the client's, then the emotion when there is room. */
function metadataOf(request: ResponseRequest, emotion: string | undefined): Record<string, string> {
  const metadata: Record<string, string> = { ...(request.metadata ?? {}) }
  if (emotion && (Object.keys(metadata).length < 16 || 'emotion' in metadata)) metadata.emotion = emotion
  return metadata
}

export function createResponseResource(options: ResponseResourceOptions) {
  const { request } = options
  return {
    id: options.id,
    object: 'response' as const,
    created_at: options.createdAt,
    completed_at: options.completedAt ?? null,
    status: options.status,
    incomplete_details: options.incompleteReason ? { reason: options.incompleteReason } : null,
    model: options.model,
    previous_response_id: request.previous_response_id ?? null,
    instructions: request.instructions ?? null,
    output: options.output,
    error: options.error ?? null,
    tools: (request.tools ?? []).map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? null,
    })),
    tool_choice: request.tool_choice ?? 'auto',
    truncation: 'disabled' as const,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    text: { format: { type: 'text' as const } },
    top_p: request.top_p ?? 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: request.temperature ?? 1,
    reasoning: null,
    usage: options.usage ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: null,
    store: options.store,
    background: false,
    service_tier: 'default',
    metadata: metadataOf(request, options.emotion),
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: null,
  }
}

export type ResponseResource = ReturnType<typeof createResponseResource>
