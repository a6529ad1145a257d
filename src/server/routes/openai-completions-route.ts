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
 * and the reply estimated. The answer is one wire format (create-chat-completions-format.ts) run by
 * the driver (drive-turn.ts); a stream the client leaves stores the text it was sent.
 */
import { randomUUID } from 'node:crypto'
import type { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { ToolDefinition } from '../../shared/messages.js'
import { boundReaderOf } from '../bound-stream-writes.js'
import { driveTurn } from '../drive-turn.js'
import { respondBadRequest } from '../error-response.js'
import { createChatCompletionsFormat } from '../openai/create-chat-completions-format.js'
import { createSentText, createWireTransport } from '../openai/create-wire-transport.js'
import { findRequestBoundBreach } from '../openai/find-request-bound-breach.js'
import { holdUntilFirstText } from '../openai/hold-until-first-text.js'
import { useFinalRefusalHeader } from '../openai/mark-final-refusal.js'
import { prepareOpenAITurn } from '../openai/prepare-openai-turn.js'
import { readOpenAIMessages } from '../openai/read-openai-messages.js'
import { readToolChoice } from '../openai/read-tool-choice.js'
import { missingDone, sendOpenAIError, unexpectedStreamFailure } from '../openai/send-openai-error.js'
import { startOpenAITurn } from '../openai/start-openai-turn.js'
import { collectWireTurn, createTurnTally, createWireDialect, resumeEvents } from '../openai/wire-format.js'
import { readJsonBody } from '../read-json-body.js'
import { type OpenAICompletionBody, openAICompletionBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'

function convertChatTools(tools: NonNullable<OpenAICompletionBody['tools']>): ToolDefinition[] {
  return tools.map(({ function: tool }) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }))
}

export function registerOpenAICompletionsRoute(app: Hono, dependencies: ServerDependencies): void {
  useFinalRefusalHeader(app, '/v1/chat/completions')
  app.post('/v1/chat/completions', dependencies.admit('v1'), async (context) => {
    const bounds = dependencies.configManager.current().server.limits
    const body = await readJsonBody(context, openAICompletionBodySchema, (value) => {
      const breach = findRequestBoundBreach({ endpoint: 'chat_completions', body: value, bounds })
      return breach ? respondBadRequest(context, breach.message) : undefined
    })
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
      safetyIdentifier: request.safety_identifier,
      turn: turnRequest,
      clientTools,
      ...(toolChoice.required ? { toolChoice: toolChoice.required } : {}),
    })
    if (!prepared.ok) return prepared.response
    const { model, emotionWriter } = prepared
    const sent = createSentText()
    // Not streamed, a client that leaves has been sent nothing.
    const readSent = request.stream ? sent.readText : () => ''
    const turn = startOpenAITurn(context, dependencies, prepared.input, { readSent })
    const format = createChatCompletionsFormat({
      id: `chatcmpl-${randomUUID()}`,
      created: Math.floor(Date.now() / 1000),
      model,
      emotionWriter,
      includeUsage: request.stream_options?.include_usage === true,
      countUsage: (done) => {
        const tokens = turn.countTokens(done)
        return {
          prompt_tokens: tokens.prompt,
          completion_tokens: tokens.completion,
          total_tokens: tokens.prompt + tokens.completion,
          ...(tokens.cached !== undefined ? { prompt_tokens_details: { cached_tokens: tokens.cached } } : {}),
        }
      },
    })
    const tally = createTurnTally(toolChoice.required)

    if (!request.stream) {
      const ending = await collectWireTurn({ events: turn.events, format, tally })
      // A reply cut by a failure is not a completion: the client gets the error, as from OpenAI.
      if (ending.failure || !ending.done) return sendOpenAIError(context, ending.failure ?? missingDone)
      return context.json(format.answer(ending.done))
    }

    // The response waits for the first text (or the end): a turn that fails before it says
    // anything answers with a non-2xx error, not a 200 stream.
    const { held, failure: early } = await holdUntilFirstText(turn.events)
    if (early) return sendOpenAIError(context, early)
    // What the stream says when the turn threw: the error, then the end of the stream.
    const failChunks = () => [
      { data: JSON.stringify({ error: unexpectedStreamFailure }) },
      { data: '[DONE]' },
    ]
    return streamSSE(
      context,
      async (stream) => {
        stream.onAbort(turn.interrupt)
        const transport = createWireTransport({
          writer: boundReaderOf(context, stream, dependencies),
          sent,
          isClosed: () => stream.aborted,
        })
        await driveTurn({
          source: { events: resumeEvents(held, turn.events) },
          dialect: createWireDialect({
            format,
            tally,
            countChunksIfLeft: transport.countChunksIfLeft,
            fail: failChunks,
          }),
          transport,
          onFailure: (error) => dependencies.logger.error({ err: error }, 'completion turn failed'),
        })
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'completion turn failed')
        for (const chunk of failChunks()) await stream.writeSSE(chunk)
      },
    )
  })
}
