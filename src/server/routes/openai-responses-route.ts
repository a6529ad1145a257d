/**
 * `POST /v1/responses`, `GET /v1/responses/:id` (and its `input_items`) and `DELETE`: Open Responses (the OpenAI Responses API) on
 * the same turn, sessions, memory, limits and errors as `/v1/chat/completions` (the request is read
 * by the same reader, see server/openai/). `input` items after `instructions` (the client's system
 * message) and after the conversation of `previous_response_id`; `tools` of type `function` are
 * the client's: a call comes back as a `function_call` item and its `function_call_output`
 * continues the turn; `tool_choice` says which are offered and whether a call is required
 * (read-tool-choice.ts), and a reply without a required call fails (check-tool-choice.ts).
 * Streamed, the answer is the Open Responses event stream; otherwise one response resource, both
 * from one wire format (create-open-responses-format.ts) run by the `/v1` driver. A response is
 * stored (unless `store: false`, which stores nothing of the turn) in the history store, with its
 * own input only, for its owner alone (read-response-owner.ts), before the answer says it is done.
 *
 * Failures: a refused request, and a failed turn not streamed, are a non-2xx with an OpenAI error
 * object (`x-should-retry: false` when a retry cannot mend it); streamed, every failure is
 * `response.failed` after `response.created`, with the error's string code. A client that closes
 * the stream is a barge-in: the turn ends as interrupted, stored with the text it was sent, and
 * the response is stored `incomplete` with that text.
 */
import { randomUUID } from 'node:crypto'
import type { Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { ToolDefinition } from '../../shared/messages.js'
import { boundReaderOf } from '../bound-stream-writes.js'
import { driveTurn } from '../drive-turn.js'
import { createSentText, createWireTransport } from '../openai/create-wire-transport.js'
import { findRequestBoundBreach } from '../openai/find-request-bound-breach.js'
import { useFinalRefusalHeader } from '../openai/mark-final-refusal.js'
import { prepareOpenAITurn } from '../openai/prepare-openai-turn.js'
import { readOpenAIMessages } from '../openai/read-openai-messages.js'
import { readToolChoice } from '../openai/read-tool-choice.js'
import { sendOpenAIError, type TurnFailure, unexpectedStreamFailure } from '../openai/send-openai-error.js'
import { startOpenAITurn, type TurnTokenCounts } from '../openai/start-openai-turn.js'
import { collectWireTurn, createTurnTally, createWireDialect, resumeEvents } from '../openai/wire-format.js'
import { readJsonBody } from '../read-json-body.js'
import { createOpenResponsesFormat } from '../responses/create-open-responses-format.js'
import { createResponseBuilder } from '../responses/create-response-builder.js'
import type { ResponseUsage } from '../responses/create-response-resource.js'
import { convertResponseItems, normalizeResponseInput } from '../responses/read-response-input.js'
import {
  deleteResponseRecord,
  keepResponseRecord,
  listInputItems,
  readResponseConversation,
  readResponseRecord,
} from '../responses/response-record.js'
import { type FunctionToolParam, responseRequestSchema } from '../responses/response-request-schema.js'
import type { ServerDependencies } from '../server-dependencies.js'

const responseIdPattern = /^resp_[0-9a-f]{32}$/

/** What a stream or an answer says when its response could not be kept: no id that is not stored. */
const responseNotStored: TurnFailure = {
  code: 'store_unavailable',
  message: 'the response could not be stored; nothing of it can be continued or read back',
}

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
  // Another caller's response is answered as one never stored: its id tells nothing.
  const readOwnRecord = (context: Context, id: string) =>
    responseIdPattern.test(id) ? readResponseRecord(dependencies, context, id) : Promise.resolve(undefined)
  app.get('/v1/responses/:id', dependencies.admit('chat'), async (context) => {
    const id = context.req.param('id')
    const record = await readOwnRecord(context, id)
    if (!record) return respondNotFound(context, id.slice(0, 80), null)
    return context.json(record.resource)
  })
  app.get('/v1/responses/:id/input_items', dependencies.admit('chat'), async (context) => {
    const id = context.req.param('id')
    const record = await readOwnRecord(context, id)
    if (!record) return respondNotFound(context, id.slice(0, 80), null)
    return context.json(listInputItems(record))
  })
  app.delete('/v1/responses/:id', dependencies.admit('chat'), async (context) => {
    const id = context.req.param('id')
    const deleted = responseIdPattern.test(id) && (await deleteResponseRecord(dependencies, context, id))
    if (!deleted) return respondNotFound(context, id.slice(0, 80), null)
    return context.json({ id, object: 'response', deleted: true })
  })

  app.post('/v1/responses', dependencies.admit('v1'), async (context) => {
    const bounds = dependencies.configManager.current().server.limits
    const body = await readJsonBody(context, responseRequestSchema, (value) => {
      const breach = findRequestBoundBreach({ endpoint: 'responses', body: value, bounds })
      return breach ? respondInvalid(context, breach.message, breach.param) : undefined
    })
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
      safetyIdentifier: request.safety_identifier,
      turn: turnRequest,
      clientTools,
      ...(toolChoice.required ? { toolChoice: toolChoice.required } : {}),
      // `store: false` keeps nothing of the turn: no history, no memory, no record.
      ...(request.store === false ? { stateless: true } : {}),
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
    const sent = createSentText()
    // Not streamed, a client that leaves has been sent nothing.
    const readSent = request.stream ? sent.readText : () => ''
    const turn = startOpenAITurn(context, dependencies, prepared.input, { readSent })
    const format = createOpenResponsesFormat({
      builder,
      countUsage: (done) => convertUsage(turn.countTokens(done)),
    })
    const tally = createTurnTally(toolChoice.required)
    // Store first, then tell: the record is kept before the answer says the response is done.
    const settle = async (): Promise<TurnFailure | undefined> => {
      if (!store) return undefined
      try {
        // Only this request's input: the earlier items are in the records of the chain.
        await keepResponseRecord(dependencies, context, { resource: builder.resource(), input })
        return undefined
      } catch (error) {
        dependencies.logger.error({ err: error }, 'a response could not be stored')
        return responseNotStored
      }
    }

    if (!request.stream) {
      const ending = await collectWireTurn({ events: turn.events, format, tally })
      // A reply cut by a failure is not a response: the client gets the error, as from OpenAI.
      if (ending.failure) return sendOpenAIError(context, ending.failure)
      const unsettled = await settle()
      if (unsettled) return sendOpenAIError(context, unsettled)
      return context.json(builder.resource())
    }

    // What the stream says when the turn threw: the response failed, nothing of it kept.
    const failChunks = () => {
      builder.fail(unexpectedStreamFailure)
      const event = builder.end()
      return [{ event: event.type, data: JSON.stringify(event) }]
    }
    // A Responses client reads every failure of a stream, the model's before any text too, as
    // `response.failed` after `response.created`.
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
          source: { events: resumeEvents([], turn.events) },
          dialect: createWireDialect({
            format,
            tally,
            countChunksIfLeft: transport.countChunksIfLeft,
            settle,
            fail: failChunks,
          }),
          transport,
          onFailure: (error) => dependencies.logger.error({ err: error }, 'response turn failed'),
        })
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'response turn failed')
        for (const chunk of failChunks()) await stream.writeSSE(chunk)
      },
    )
  })
}
