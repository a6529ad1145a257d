/**
 * `POST /v1/responses` and `GET /v1/responses/:id`: Open Responses (the OpenAI Responses API) on
 * the same turn, sessions, memory, limits and errors as `/v1/chat/completions` (the request is read
 * by the same reader, see server/openai/). `input` items after `instructions` (the client's system
 * message) and after the conversation of `previous_response_id`; `tools` of type `function` are
 * the client's: a call comes back as a `function_call` item and its `function_call_output`
 * continues the turn; `tool_choice` says which are offered and whether a call is required
 * (read-tool-choice.ts), and a reply without a required call fails (check-tool-choice.ts).
 * Streamed, the answer is the Open Responses event stream; otherwise one response resource. A
 * response is stored (unless `store: false`) in the history store, with its own input only.
 *
 * Failures: before any output, a non-2xx with an OpenAI error object (`x-should-retry: false` when
 * a retry cannot mend it); once a stream has begun, `response.failed` with the error's string
 * code. A client that closes the stream is a barge-in: the turn ends as interrupted, stored so,
 * and the response is stored `incomplete`.
 */
import { randomUUID } from 'node:crypto'
import type { Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import type { ToolDefinition } from '../../shared/messages.js'
import { boundReaderOf } from '../bound-stream-writes.js'
import { createToolChoiceCheck } from '../openai/check-tool-choice.js'
import { holdUntilFirstText } from '../openai/hold-until-first-text.js'
import { useFinalRefusalHeader } from '../openai/mark-final-refusal.js'
import { prepareOpenAITurn } from '../openai/prepare-openai-turn.js'
import { readOpenAIMessages } from '../openai/read-openai-messages.js'
import { readToolChoice } from '../openai/read-tool-choice.js'
import {
  isTurnFailure,
  missingDone,
  sendOpenAIError,
  type TurnFailure,
  unexpectedStreamFailure,
} from '../openai/send-openai-error.js'
import { startOpenAITurn, type TurnTokenCounts } from '../openai/start-openai-turn.js'
import { readJsonBody } from '../read-json-body.js'
import { createResponseBuilder, type ResponseBuilder } from '../responses/create-response-builder.js'
import type { ResponseUsage } from '../responses/create-response-resource.js'
import { convertResponseItems, normalizeResponseInput } from '../responses/read-response-input.js'
import {
  keepResponseRecord,
  readResponseConversation,
  readResponseRecord,
} from '../responses/response-record.js'
import { type FunctionToolParam, responseRequestSchema } from '../responses/response-request-schema.js'
import type { ServerDependencies } from '../server-dependencies.js'

const responseIdPattern = /^resp_[0-9a-f]{32}$/

function convertUsage(tokens: TurnTokenCounts): ResponseUsage {
  return {
    input_tokens: tokens.prompt,
    output_tokens: tokens.completion,
    total_tokens: tokens.prompt + tokens.completion,
    input_tokens_details: { cached_tokens: tokens.cached ?? 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  }
}

function respondNotFound(context: Context, id: string, param: string | null): Response {
  const message = `no stored response with id ${id}`
  return context.json({ error: { message, type: 'not_found', param, code: 'not_found' } }, 404)
}

function respondInvalid(context: Context, message: string, param: string | null): Response {
  context.header('x-should-retry', 'false')
  return context.json({ error: { message, type: 'bad_request', param, code: 'bad_request' } }, 400)
}

function convertFunctionTools(tools: readonly FunctionToolParam[]): ToolDefinition[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }))
}

const secondsNow = () => Math.floor(Date.now() / 1000)

export function registerOpenAIResponsesRoute(app: Hono, dependencies: ServerDependencies): void {
  useFinalRefusalHeader(app, '/v1/responses')
  app.get('/v1/responses/:id', dependencies.admit('chat'), async (context) => {
    const id = context.req.param('id')
    const record = responseIdPattern.test(id)
      ? await readResponseRecord(dependencies, context, id)
      : undefined
    if (!record) return respondNotFound(context, id.slice(0, 80), null)
    return context.json(record.resource)
  })

  app.post('/v1/responses', dependencies.admit('v1'), async (context) => {
    const body = await readJsonBody(context, responseRequestSchema)
    if (!body.ok) return body.response
    const request = body.value
    const previousId = request.previous_response_id ?? undefined
    const earlier = previousId
      ? responseIdPattern.test(previousId)
        ? await readResponseConversation(dependencies, context, previousId)
        : undefined
      : []
    if (!earlier) return respondNotFound(context, previousId ?? '', 'previous_response_id')
    const input = normalizeResponseInput(request.input)
    const items = [...earlier, ...input]
    const converted = convertResponseItems(items)
    if (!converted.ok) return respondInvalid(context, converted.message, 'input')
    const messages = request.instructions
      ? [{ role: 'system', content: request.instructions }, ...converted.messages]
      : converted.messages
    const toolChoice = readToolChoice(convertFunctionTools(request.tools ?? []), request.tool_choice)
    if (!toolChoice.ok) return respondInvalid(context, toolChoice.message, 'tool_choice')
    const clientTools = toolChoice.tools
    const turnRequest = readOpenAIMessages(messages, { withTools: clientTools.length > 0 })
    if (!turnRequest) return respondInvalid(context, 'input: no message with role "user"', 'input')
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

    const store = request.store !== false
    const builder = createResponseBuilder({
      id: `resp_${randomUUID().replaceAll('-', '')}`,
      model: prepared.model,
      // The choice as the spec writes it, whichever wire form the client sent.
      request: { ...request, tool_choice: toolChoice.echo },
      store,
      now: secondsNow,
      emotionWriter: prepared.emotionWriter,
    })
    // The reply text written to the client: a client that leaves has heard this much.
    let sent = ''
    const turn = startOpenAITurn(context, dependencies, prepared.input, { readSent: () => sent })
    const toolChoiceCheck = createToolChoiceCheck(toolChoice.required)
    const finishWith = (done: LlmDoneEvent | undefined, failure: TurnFailure | undefined) =>
      builder.finish({
        ...(done
          ? { usage: convertUsage(turn.countTokens(done)), emotion: done.emotion, text: done.text }
          : {}),
        ...(done?.interrupted ? { interrupted: true } : {}),
        ...(failure || !done ? { failure: failure ?? missingDone } : {}),
      })
    const keep = async (finished: ResponseBuilder) => {
      if (!store) return
      try {
        // Only this request's input: the earlier items are in the records of the chain.
        await keepResponseRecord(dependencies, context, { resource: finished.resource(), input })
      } catch (error) {
        dependencies.logger.error({ err: error }, 'a response could not be stored')
      }
    }

    if (!request.stream) {
      let done: LlmDoneEvent | undefined
      let failure: TurnFailure | undefined
      for (let next = await turn.events.next(); !next.done; next = await turn.events.next()) {
        const event = next.value
        builder.push(event)
        toolChoiceCheck.observe(event)
        if (event.type === 'llm_error' && isTurnFailure(event)) failure = event
        if (event.type === 'llm_done') done = event
      }
      if (done && !failure) failure = toolChoiceCheck.unmet(done)
      // A reply cut by a failure is not a response: the client gets the error, as from OpenAI.
      if (failure || !done) return sendOpenAIError(context, failure ?? missingDone)
      finishWith(done, undefined)
      await keep(builder)
      return context.json(builder.resource())
    }

    // The stream waits for the first text (or the end): a turn that fails before it says anything
    // answers with a non-2xx error, not a 200 stream.
    const { held, failure: early } = await holdUntilFirstText(turn.events)
    if (early) return sendOpenAIError(context, early)
    return streamSSE(
      context,
      async (stream) => {
        stream.onAbort(turn.interrupt)
        const reader = boundReaderOf(context, stream, dependencies)
        // After a barge-in the turn still runs to its end (stored as interrupted); nothing is sent.
        // `onWritten` runs once the last of `events` has gone to the stream.
        const write = async (events: readonly { type: string }[], onWritten?: () => void) => {
          for (const [index, event] of events.entries()) {
            if (stream.aborted) return
            const last = index === events.length - 1
            await reader.writeSSE(
              { event: event.type, data: JSON.stringify(event) },
              last ? onWritten : undefined,
            )
          }
        }
        await write(builder.start())
        let done: LlmDoneEvent | undefined
        let failure: TurnFailure | undefined
        const send = async (event: CharpipeEvent) => {
          // What a client that leaves has been sent: the display text, without inline emotion tags,
          // counted once it goes to the stream, not while it waits for a reader that lags.
          const text = event.type === 'llm_chunk' ? event.text : ''
          const countSent = () => {
            if (!stream.aborted) sent += text
          }
          const events = builder.push(event)
          if (text && events.length === 0) countSent()
          await write(events, text ? countSent : undefined)
          toolChoiceCheck.observe(event)
          if (event.type === 'llm_error' && isTurnFailure(event)) failure = event
          if (event.type === 'llm_done') done = event
          if (event.type === 'llm_done' && !failure) failure = toolChoiceCheck.unmet(event)
        }
        for (const event of held) await send(event)
        for (let next = await turn.events.next(); !next.done; next = await turn.events.next())
          await send(next.value)
        await write(finishWith(done, failure))
        await reader.flushed()
        await keep(builder)
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'response turn failed')
        const event = builder.error(unexpectedStreamFailure)
        await stream.writeSSE({ event: event.type, data: JSON.stringify(event) })
      },
    )
  })
}
