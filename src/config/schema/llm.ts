/**
 * The `llm` section (provider, model, fallbacks, vision describer, transcriber) and the
 * `openclaw` gateway it may point at: everything about reaching a model.
 */
import * as z from 'zod'
import { processorMapSchema, secret, timeoutMs } from './fields.js'

export const fallbackProviderSchema = z.strictObject({
  provider: z.string().min(1).describe('Registry name, or any name with base_url (OpenAI-compatible).'),
  model: z.string().default('').describe("Model id; empty: the provider's default."),
  base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
})

const visionDescriberSchema = z.strictObject({
  provider: z
    .string()
    .min(1)
    .describe(
      'Registry name of a provider with a vision model (openai, anthropic, doubao, …) or any name with base_url.',
    ),
  model: z.string().default('').describe("Vision model id; empty: the provider's default."),
  base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
  prompt: z
    .string()
    .default('')
    .describe(
      "What the vision model is asked about each image; empty: a builtin prompt in the character's language (a short description in that language).",
    ),
  timeout_ms: timeoutMs().default(30_000).describe('No description by then: use a placeholder.'),
})

const transcriberSchema = z.strictObject({
  provider: z
    .string()
    .min(1)
    .default('openai')
    .describe(
      'Registry name of a provider with an OpenAI-compatible /audio/transcriptions endpoint, or any name with base_url.',
    ),
  model: z.string().min(1).default('whisper-1').describe('Transcription model id.'),
  base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
  language: z
    .string()
    .max(20)
    .default('')
    .describe('Language of the audio (ISO 639-1, e.g. zh); empty: the model detects it.'),
  timeout_ms: timeoutMs().default(60_000).describe('No transcript by then: use a placeholder.'),
})

export const llmSchema = z
  .strictObject({
    provider: z
      .string()
      .min(1)
      .default('mock')
      .describe(
        'Registry name (deepseek, moonshot, doubao, ollama, openai, anthropic, openclaw, custom, mock) or any name with base_url.',
      ),
    model: z.string().default('').describe("Model id; empty: the provider's default."),
    base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
    api_key: secret('API key.'),
    temperature: z.number().min(0).max(2).default(0.8).describe('Sampling temperature.'),
    max_tokens: z
      .int()
      .min(1)
      .max(1_000_000)
      .default(1024)
      .describe('Most tokens the model may write in one reply.'),
    context_window: z
      .int()
      .min(0)
      .max(100_000_000)
      .default(0)
      .describe("The model's context window in tokens; 0: the registry's value for the provider."),
    timeout_ms: timeoutMs()
      .default(20_000)
      .describe(
        'No first chunk by then (across retries): abort the request and try the fallback, or end the turn with upstream_timeout. A voice character should not be silent longer; raise it for slow reasoning models.',
      ),
    stall_timeout_ms: timeoutMs()
      .default(30_000)
      .describe('No chunk for this long in the middle of a stream: abort it.'),
    max_retries: z
      .int()
      .min(0)
      .max(10)
      .default(2)
      .describe('Retries before the first chunk (network, 408, 409, 429, 5xx).'),
    function_calling: z
      .boolean()
      .default(true)
      .describe('The model supports native tool calls; off: tools are described in the system prompt.'),
    prompt_cache: z
      .boolean()
      .default(true)
      .describe(
        'Anthropic: mark the system prompt and the end of the history as prompt-cache breakpoints, so ' +
          'later turns read them from the cache. (OpenAI-compatible providers cache prefixes by themselves.)',
      ),
    max_tool_steps: z
      .int()
      .min(1)
      .max(50)
      .default(5)
      .describe('Most model calls in one turn while tools are being called.'),
    vision: z.boolean().default(false).describe('The model accepts images.'),
    vision_describer: visionDescriberSchema
      .nullable()
      .default(null)
      .describe(
        'A vision model that describes images as [图片:描述] ([Image: …] for an English character) when `vision` is false; null: a placeholder says the model cannot see them.',
      ),
    transcriber: transcriberSchema
      .nullable()
      .default(null)
      .describe(
        'A speech-to-text endpoint that turns audio attachments (voice messages, the sound of a video) into [语音:转写] ([Voice: …] for an English character); null: a placeholder says the audio was not transcribed.',
      ),
    fallbacks: z
      .array(fallbackProviderSchema)
      .default([])
      .describe('Providers tried in order when this one fails before its first chunk.'),
    processors: processorMapSchema.describe(
      "Model-level processor defaults; the character's pipeline.processors entry wins per id.",
    ),
  })
  .describe('The language model.')

export const openclawSchema = z
  .strictObject({
    url: z.string().min(1).default('http://localhost:18789').describe('Gateway base URL.'),
    token: secret('Gateway bearer token.'),
    session_key: z.string().default('main').describe('Sent as x-openclaw-session-key.'),
    agent_id: z
      .string()
      .default('')
      .describe('Sent as x-openclaw-agent-id when set; empty: the gateway default agent.'),
    timeout_ms: timeoutMs().default(120_000).describe('No first chunk by then: abort the request.'),
  })
  .describe('An OpenClaw gateway (provider `openclaw`).')
