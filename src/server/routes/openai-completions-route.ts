/**
 * `POST /v1/chat/completions`, OpenAI-compatible: the character (persona, history, memory) behind any
 * OpenAI client, for both kinds of client (docs/protocol.md says which part of the prompt comes from
 * where). A client that sends only its new message gets the character's own history and memory; a
 * client that sends its own system prompt or history gets them honoured, with the character's reply
 * format, lorebook and memory added. The session is the `X-Session-Id` header, else the `user`
 * field, in the namespace of the client's `X-Charpipe-Client` key. A request naming none never
 * lands in another client's conversation: with its own history it is stateless (nothing read or
 * stored), with one message it uses the session `openai` of its client. The reply's emotion rides
 * along as an extra `emotion` field. A named client (`server.clients`) is served by its profile
 * instead (src/server/openai/: its session, persona, history and emotion dialect); the defaults are
 * the rules above. `tools` of type `function` are the client's: a call of one ends the answer as
 * `tool_calls` (`finish_reason: "tool_calls"`), and the client's `tool` messages continue the turn;
 * `tool_choice` is read as on `/v1/responses` (read-tool-choice.ts) and a reply without the call it
 * required is a failure (check-tool-choice.ts).
 *
 * Failures are answered as OpenAI-compatible servers answer them: a non-2xx with an error body when
 * the turn failed before any text (or, not streamed, at all); once a stream has begun, an
 * `{"error":…}` event before `[DONE]` and no `finish_reason` that would call the reply complete.
 * A failure that a retry cannot mend (a bad request, an unknown model, the provider refusing the
 * server's key or request) carries `x-should-retry: false`, which the official SDKs obey instead
 * of retrying by status. `usage` is the model's own when it reports one, else the messages sent
 * and the reply estimated.
 */
import { randomUUID } from 'node:crypto'
import type { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { CharpipeEvent, LlmDoneEvent, ToolCallEvent } from '../../shared/events.js'
import type { ToolDefinition } from '../../shared/messages.js'
import { boundReaderOf } from '../bound-stream-writes.js'
import { respondBadRequest } from '../error-response.js'
import { createToolChoiceCheck } from '../openai/check-tool-choice.js'
import { holdUntilFirstText } from '../openai/hold-until-first-text.js'
import { useFinalRefusalHeader } from '../openai/mark-final-refusal.js'
import { prepareOpenAITurn } from '../openai/prepare-openai-turn.js'
import { readOpenAIMessages } from '../openai/read-openai-messages.js'
import { readToolChoice } from '../openai/read-tool-choice.js'
import {
  convertToOpenAIError,
  isTurnFailure,
  missingDone,
  sendOpenAIError,
  type TurnFailure,
  unexpectedStreamFailure,
} from '../openai/send-openai-error.js'
import { startOpenAITurn } from '../openai/start-openai-turn.js'
import { readJsonBody } from '../read-json-body.js'
import { type OpenAICompletionBody, openAICompletionBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'

interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

function convertChatTools(tools: NonNullable<OpenAICompletionBody['tools']>): ToolDefinition[] {
  return tools.map(({ function: tool }) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }))
}

/** A call of the client's tool as Chat Completions writes it: the arguments as JSON text. */
function convertToWireToolCall(call: ToolCallEvent): WireToolCall {
  const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {})
  return { id: call.id, type: 'function', function: { name: call.name, arguments: text } }
}

export function registerOpenAICompletionsRoute(app: Hono, dependencies: ServerDependencies): void {
  useFinalRefusalHeader(app, '/v1/chat/completions')
  app.post('/v1/chat/completions', dependencies.admit('v1'), async (context) => {
    const body = await readJsonBody(context, openAICompletionBodySchema)
    if (!body.ok) return body.response
    const request = body.value
    const toolChoice = readToolChoice(convertChatTools(request.tools ?? []), request.tool_choice)
    if (!toolChoice.ok) return respondBadRequest(context, toolChoice.message)
    const clientTools = toolChoice.tools
    const turnRequest = readOpenAIMessages(request.messages, { withTools: clientTools.length > 0 })
    if (!turnRequest) return respondBadRequest(context, 'messages: no message with role "user"')
    const prepared = await prepareOpenAITurn({
      context,
      dependencies,
      model: request.model,
      user: request.user,
      turn: turnRequest,
      clientTools,
      ...(toolChoice.required ? { toolChoice: toolChoice.required } : {}),
    })
    if (!prepared.ok) return prepared.response
    const { model, emotionWriter } = prepared
    const id = `chatcmpl-${randomUUID()}`
    const created = Math.floor(Date.now() / 1000)
    const turn = startOpenAITurn(context, dependencies, prepared.input)
    const toolChoiceCheck = createToolChoiceCheck(toolChoice.required)
    // The model's calls of the client's tools: the answer ends with them, for the client to run.
    const toolCalls: WireToolCall[] = []
    const finishReason = (done: LlmDoneEvent) =>
      toolCalls.length > 0 ? 'tool_calls' : done.interrupted ? 'length' : 'stop'
    const usageFor = (done: LlmDoneEvent) => {
      const tokens = turn.countTokens(done)
      return {
        prompt_tokens: tokens.prompt,
        completion_tokens: tokens.completion,
        total_tokens: tokens.prompt + tokens.completion,
        ...(tokens.cached !== undefined ? { prompt_tokens_details: { cached_tokens: tokens.cached } } : {}),
      }
    }

    if (!request.stream) {
      let done: LlmDoneEvent | undefined
      let failure: TurnFailure | undefined
      let streamedContent = ''
      for (let next = await turn.events.next(); !next.done; next = await turn.events.next()) {
        const event = next.value
        toolChoiceCheck.observe(event)
        if (event.type === 'tool_call' && event.client) toolCalls.push(convertToWireToolCall(event))
        if (event.type === 'llm_error' && isTurnFailure(event)) failure = event
        if (event.type === 'llm_chunk') streamedContent += emotionWriter.writeText(event.text)
        if (event.type === 'llm_emotion' || event.type === 'llm_sentence')
          streamedContent += emotionWriter.writeEmotion(event.emotion)
        if (event.type === 'llm_done') {
          done = event
          streamedContent += emotionWriter.end(event.emotion)
        }
      }
      if (done && !failure) failure = toolChoiceCheck.unmet(done)
      // A reply cut by a failure is not a completion: the client gets the error, as from OpenAI.
      if (failure || !done) return sendOpenAIError(context, failure ?? missingDone)
      const content = emotionWriter.writeWhole(done.text, streamedContent, done.emotion)
      return context.json({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: content || toolCalls.length === 0 ? content : null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              ...(emotionWriter.usesField ? { emotion: done.emotion } : {}),
              refusal: null,
            },
            finish_reason: finishReason(done),
            logprobs: null,
          },
        ],
        usage: usageFor(done),
      })
    }

    // The response waits for the first text (or the end): a turn that fails before it says
    // anything answers with a non-2xx error, not a 200 stream.
    const { events } = turn
    const { held, failure: early } = await holdUntilFirstText(events)
    if (early) return sendOpenAIError(context, early)

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
        stream.onAbort(() => turn.controller.abort())
        const reader = boundReaderOf(context, stream, dependencies)
        await reader.writeSSE({ data: JSON.stringify(chunk({ role: 'assistant', content: '' })) })
        let failure: TurnFailure | undefined
        let emotion = ''
        const sendContent = async (content: string) => {
          if (content) await reader.writeSSE({ data: JSON.stringify(chunk({ content })) })
        }
        const send = async (event: CharpipeEvent) => {
          toolChoiceCheck.observe(event)
          if (event.type === 'llm_emotion') emotion = event.emotion
          if (event.type === 'tool_call' && event.client) {
            // The text before the call first, with its tag in an inline dialect.
            await sendContent(emotionWriter.end(emotion))
            const call = { index: toolCalls.length, ...convertToWireToolCall(event) }
            toolCalls.push(call)
            await reader.writeSSE({ data: JSON.stringify(chunk({ tool_calls: [call] })) })
          } else if (event.type === 'llm_chunk' && event.text) {
            await sendContent(emotionWriter.writeText(event.text))
          } else if (event.type === 'llm_emotion' && emotionWriter.usesField) {
            await reader.writeSSE({ data: JSON.stringify(chunk({ emotion: event.emotion })) })
          } else if (event.type === 'llm_emotion' || event.type === 'llm_sentence') {
            // An inline dialect sends the text held until its emotion was known, after its tag.
            await sendContent(emotionWriter.writeEmotion(event.emotion))
          } else if (event.type === 'llm_error' && isTurnFailure(event)) {
            failure = event
          } else if (event.type === 'llm_done') {
            await sendContent(emotionWriter.end(event.emotion))
            failure ??= toolChoiceCheck.unmet(event)
            if (failure) {
              // Cut by a failure: an error object, as OpenAI-compatible servers send, and no
              // finish_reason that would call the reply complete.
              await reader.writeSSE({ data: JSON.stringify({ error: convertToOpenAIError(failure) }) })
            } else {
              const delta = emotionWriter.usesField ? { emotion: event.emotion } : {}
              await reader.writeSSE({ data: JSON.stringify(chunk(delta, finishReason(event))) })
            }
            if (includeUsage) {
              await reader.writeSSE({
                data: JSON.stringify({ ...chunk({}), choices: [], usage: usageFor(event) }),
              })
            }
          }
        }
        for (const event of held) await send(event)
        for (;;) {
          const next = await events.next()
          if (next.done) break
          await send(next.value)
        }
        await reader.writeSSE({ data: '[DONE]' })
        await reader.flushed()
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'completion turn failed')
        await stream.writeSSE({ data: JSON.stringify({ error: unexpectedStreamFailure }) })
        await stream.writeSSE({ data: '[DONE]' })
      },
    )
  })
}
