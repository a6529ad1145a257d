/**
 * `POST /v1/chat/completions`, OpenAI-compatible: the character (persona, history, memory) behind any
 * OpenAI client. The last user message is the input; the rest of `messages` is ignored because the
 * server keeps the history itself. The session is the `X-Session-Id` header, else the `user` field,
 * else `default`. The reply's emotion rides along as an extra `emotion` field.
 */
import { randomUUID } from 'node:crypto'
import type { Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { GenerateInput } from '../../engine/types.js'
import type { LlmErrorEvent } from '../../shared/events.js'
import { countTokens } from '../count-tokens.js'
import { mapErrorCodeToStatus, respondBadRequest } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import { type OpenAiCompletionBody, openAiCompletionBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'
import { streamTurn } from '../stream-turn.js'

type CompletionMessage = OpenAiCompletionBody['messages'][number]

/** The turn input from the last user message: its text parts joined, its image parts as images. */
function readLastUserMessage(messages: CompletionMessage[]): Omit<GenerateInput, 'session'> | undefined {
  const last = messages.findLast((message) => message.role === 'user')
  if (!last) return undefined
  if (typeof last.content === 'string') return { text: last.content }
  const parts = last.content ?? []
  const text = parts
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n')
  const images = parts
    .filter((part) => part.type === 'image_url' && part.image_url !== undefined)
    .map((part) => (typeof part.image_url === 'string' ? part.image_url : part.image_url!.url))
  return images.length > 0 ? { text, images } : { text }
}

function sendOpenAiError(context: Context, event: Pick<LlmErrorEvent, 'code' | 'message'>): Response {
  const status = mapErrorCodeToStatus(event.code)
  return context.json(
    { error: { message: event.message, type: event.code, code: event.code, param: null } },
    status,
  )
}

export function registerOpenAiCompletionsRoute(app: Hono, dependencies: ServerDependencies): void {
  app.post('/v1/chat/completions', async (context) => {
    const body = await readJsonBody(context, openAiCompletionBodySchema)
    if (!body.ok) return body.response
    const request = body.value
    const userInput = readLastUserMessage(request.messages)
    if (!userInput) return respondBadRequest(context, 'messages: no message with role "user"')
    const session = context.req.header('x-session-id') || request.user || 'default'
    const input: GenerateInput = { ...userInput, session }
    const config = dependencies.configManager.current()
    const model = request.model || config.llm.model || config.llm.provider
    const id = `chatcmpl-${randomUUID()}`
    const created = Math.floor(Date.now() / 1000)
    const controller = new AbortController()
    // A client that hangs up on a non-streamed answer ends the turn too.
    context.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true })
    const turn = () =>
      streamTurn({
        charpipe: dependencies.charpipe,
        input,
        signal: controller.signal,
        metrics: dependencies.metrics,
        endpoint: 'openai',
      })
    const usageFor = (reply: string) => {
      const prompt = countTokens(input.text)
      const completion = countTokens(reply)
      return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
    }

    if (!request.stream) {
      let done: { text: string; emotion: string; interrupted: boolean } | undefined
      let failure: LlmErrorEvent | undefined
      for await (const event of turn()) {
        if (event.type === 'llm_error') failure = event
        if (event.type === 'llm_done') done = event
      }
      if (failure && !done?.text) return sendOpenAiError(context, failure)
      const text = done?.text ?? ''
      return context.json({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, emotion: done?.emotion, refusal: null },
            finish_reason: failure || done?.interrupted ? 'length' : 'stop',
            logprobs: null,
          },
        ],
        usage: usageFor(text),
      })
    }

    const includeUsage = request.stream_options?.include_usage === true
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    })
    return streamSSE(
      context,
      async (stream) => {
        stream.onAbort(() => controller.abort())
        await stream.writeSSE({ data: JSON.stringify(chunk({ role: 'assistant', content: '' })) })
        let sentText = false
        for await (const event of turn()) {
          if (event.type === 'llm_chunk' && event.text) {
            sentText = true
            await stream.writeSSE({ data: JSON.stringify(chunk({ content: event.text })) })
          } else if (event.type === 'llm_emotion') {
            await stream.writeSSE({ data: JSON.stringify(chunk({ emotion: event.emotion })) })
          } else if (event.type === 'llm_error' && !sentText && event.code !== 'interrupted_by_new_input') {
            // Before any text the client gets an error it can act on, as OpenAI streams one.
            const error = { message: event.message, type: event.code, code: event.code, param: null }
            await stream.writeSSE({ data: JSON.stringify({ error }) })
            return
          } else if (event.type === 'llm_done') {
            const finish = event.interrupted ? 'length' : 'stop'
            await stream.writeSSE({ data: JSON.stringify(chunk({ emotion: event.emotion }, finish)) })
            if (includeUsage) {
              await stream.writeSSE({
                data: JSON.stringify({ ...chunk({}), choices: [], usage: usageFor(event.text) }),
              })
            }
          }
        }
        await stream.writeSSE({ data: '[DONE]' })
      },
      async (error, stream) => {
        dependencies.logger.error({ error }, 'completion turn failed')
        const payload = {
          message: 'the turn failed; see the server log',
          type: 'internal',
          code: 'internal',
          param: null,
        }
        await stream.writeSSE({ data: JSON.stringify({ error: payload }) })
      },
    )
  })
}
