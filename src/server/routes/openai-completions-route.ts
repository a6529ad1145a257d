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
 * the rules above.
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
import type { Context, Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { GenerateInput } from '../../engine/types.js'
import { isRetryableStatus } from '../../shared/errors.js'
import type { CharpipeEvent, LlmDoneEvent, LlmErrorEvent } from '../../shared/events.js'
import { countMessageTokens, countTokens } from '../count-tokens.js'
import { mapErrorCodeToStatus, respondBadRequest } from '../error-response.js'
import {
  createClientEmotionWriter,
  planProfileTurn,
  readClientProfile,
  readRegeneratedTurn,
} from '../openai/index.js'
import { readJsonBody } from '../read-json-body.js'
import { readOpenAIMessages } from '../read-openai-messages.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { openAICompletionBodySchema } from '../request-schemas.js'
import { selectModelCharacter } from '../select-model-character.js'
import type { ServerDependencies } from '../server-dependencies.js'
import { streamTurn } from '../stream-turn.js'

type TurnFailure = Pick<LlmErrorEvent, 'code' | 'message' | 'status'>

/** An interruption by the session's next input ends the reply early; it is not a failure. */
function isFailure(event: LlmErrorEvent): boolean {
  return event.code !== 'interrupted_by_new_input'
}

const missingDone: TurnFailure = { code: 'internal', message: 'the turn ended without a result' }

/** A failure the same request would meet again: the client's own mistake, or the provider's refusal. */
function isFailureFinal(failure: TurnFailure): boolean {
  if (failure.code === 'bad_request' || failure.code === 'invalid_config') return true
  return (
    failure.code === 'upstream_http' && failure.status !== undefined && !isRetryableStatus(failure.status)
  )
}

function convertToOpenAIError(event: TurnFailure) {
  return { message: event.message, type: event.code, code: event.code, param: null }
}

function sendOpenAIError(context: Context, event: TurnFailure): Response {
  if (isFailureFinal(event)) context.header('x-should-retry', 'false')
  return context.json({ error: convertToOpenAIError(event) }, mapErrorCodeToStatus(event.code))
}

/**
 * Every 4xx of this route but the ones a wait mends (408, 409, 429) is final too. A new Response:
 * the Node adapter may send a response from the headers it was made with, not later changes.
 */
function markFinalRefusal(response: Response): Response {
  const { status } = response
  if (status < 400 || status >= 500 || isRetryableStatus(status)) return response
  const headers = new Headers(response.headers)
  headers.set('x-should-retry', 'false')
  return new Response(response.body, { status, statusText: response.statusText, headers })
}

export function registerOpenAICompletionsRoute(app: Hono, dependencies: ServerDependencies): void {
  app.use('/v1/chat/completions', async (context, next) => {
    await next()
    context.res = markFinalRefusal(context.res)
  })
  app.post('/v1/chat/completions', async (context) => {
    const body = await readJsonBody(context, openAICompletionBodySchema)
    if (!body.ok) return body.response
    const request = body.value
    const turnRequest = readOpenAIMessages(request.messages)
    if (!turnRequest) return respondBadRequest(context, 'messages: no message with role "user"')
    // The named client's profile decides the session, what of its prompt is kept and the character.
    const profile = readClientProfile(context)
    const plan = planProfileTurn({
      profile,
      clientPrompt: turnRequest.clientPrompt,
      user: request.user,
      sessionHeader: context.req.header('x-session-id'),
      model: request.model,
    })
    if (!plan.ok) return respondBadRequest(context, plan.message)
    const { stateless, clientPrompt } = plan
    // A stateless request still gets a session of its own for this request alone (turns of one
    // session interrupt each other), nothing read or stored.
    let session = `~v1~${randomUUID()}`
    if (plan.session !== undefined) {
      const resolved = resolveRequestSession(context, dependencies.sessionOwners, plan.session)
      if (resolved.response) return resolved.response
      session = resolved.session
    }
    const config = dependencies.configManager.current()
    let character: string | undefined
    try {
      character = selectModelCharacter(config, plan.character)
    } catch (error) {
      const field = profile.character ? `client "${context.get('client')?.name}": profile.character` : 'model'
      return respondBadRequest(context, `${field}: ${(error as Error).message}`)
    }
    const emotionWriter = createClientEmotionWriter(config, profile, character)
    // The store keeps this client's conversation: the same last question resent is a regenerate.
    const replaces = plan.serverHistory
      ? await readRegeneratedTurn({
          charpipe: dependencies.charpipe,
          session,
          character,
          text: turnRequest.input.text,
          clientHistory: turnRequest.clientPrompt?.history,
          logger: dependencies.logger,
        })
      : undefined
    // The client's input id (a resend with the same key is the same turn, never stored twice).
    const inputId = context.req.header('idempotency-key')
    if (inputId !== undefined && (inputId === '' || inputId.length > 128)) {
      return respondBadRequest(context, 'Idempotency-Key: at most 128 characters, not empty')
    }
    const input: GenerateInput = {
      ...turnRequest.input,
      session,
      ...(character ? { character } : {}),
      ...(clientPrompt ? { clientPrompt } : {}),
      ...(stateless ? { stateless: true } : {}),
      ...(inputId ? { id: inputId } : {}),
      ...(replaces ? { replaces } : {}),
    }
    const model = request.model || config.llm.model || config.llm.provider
    const id = `chatcmpl-${randomUUID()}`
    const created = Math.floor(Date.now() / 1000)
    const controller = new AbortController()
    // A client that hangs up on a non-streamed answer ends the turn too.
    context.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true })
    // The prompt as sent, counted only when the model reports no usage of its own.
    let countedPrompt = 0
    const turn = () =>
      streamTurn({
        charpipe: dependencies.charpipe,
        input,
        signal: controller.signal,
        metrics: dependencies.metrics,
        endpoint: 'openai',
        onModelCall: (messages) => {
          countedPrompt += countMessageTokens(messages)
        },
      })
    const usageFor = (done: LlmDoneEvent) => {
      const prompt = done.usage?.prompt_tokens ?? countedPrompt
      const completion = done.usage?.completion_tokens ?? countTokens(done.text)
      return {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        ...(done.usage?.cached_tokens !== undefined
          ? { prompt_tokens_details: { cached_tokens: done.usage.cached_tokens } }
          : {}),
      }
    }

    if (!request.stream) {
      let done: LlmDoneEvent | undefined
      let failure: LlmErrorEvent | undefined
      let streamedContent = ''
      for await (const event of turn()) {
        if (event.type === 'llm_error' && isFailure(event)) failure = event
        if (event.type === 'llm_chunk') streamedContent += emotionWriter.writeText(event.text)
        if (event.type === 'llm_emotion' || event.type === 'llm_sentence')
          streamedContent += emotionWriter.writeEmotion(event.emotion)
        if (event.type === 'llm_done') {
          done = event
          streamedContent += emotionWriter.end(event.emotion)
        }
      }
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
              content,
              ...(emotionWriter.usesField ? { emotion: done.emotion } : {}),
              refusal: null,
            },
            finish_reason: done.interrupted ? 'length' : 'stop',
            logprobs: null,
          },
        ],
        usage: usageFor(done),
      })
    }

    // The response waits for the first text (or the end): a turn that fails before it says
    // anything answers with a non-2xx error, not a 200 stream.
    const events = turn()[Symbol.asyncIterator]()
    const held: CharpipeEvent[] = []
    for (;;) {
      const next = await events.next()
      if (next.done) break
      held.push(next.value)
      if ((next.value.type === 'llm_chunk' && next.value.text) || next.value.type === 'llm_done') break
    }
    const early = held.find((event): event is LlmErrorEvent => event.type === 'llm_error' && isFailure(event))
    if (early && !held.some((event) => event.type === 'llm_chunk' && event.text)) {
      await events.return?.(undefined)
      return sendOpenAIError(context, early)
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
        let failure: LlmErrorEvent | undefined
        const sendContent = async (content: string) => {
          if (content) await stream.writeSSE({ data: JSON.stringify(chunk({ content })) })
        }
        const send = async (event: CharpipeEvent) => {
          if (event.type === 'llm_chunk' && event.text) {
            await sendContent(emotionWriter.writeText(event.text))
          } else if (event.type === 'llm_emotion' && emotionWriter.usesField) {
            await stream.writeSSE({ data: JSON.stringify(chunk({ emotion: event.emotion })) })
          } else if (event.type === 'llm_emotion' || event.type === 'llm_sentence') {
            // An inline dialect sends the text held until its emotion was known, after its tag.
            await sendContent(emotionWriter.writeEmotion(event.emotion))
          } else if (event.type === 'llm_error' && isFailure(event)) {
            failure = event
          } else if (event.type === 'llm_done') {
            await sendContent(emotionWriter.end(event.emotion))
            if (failure) {
              // Cut by a failure: an error object, as OpenAI-compatible servers send, and no
              // finish_reason that would call the reply complete.
              await stream.writeSSE({ data: JSON.stringify({ error: convertToOpenAIError(failure) }) })
            } else {
              const finish = event.interrupted ? 'length' : 'stop'
              const delta = emotionWriter.usesField ? { emotion: event.emotion } : {}
              await stream.writeSSE({ data: JSON.stringify(chunk(delta, finish)) })
            }
            if (includeUsage) {
              await stream.writeSSE({
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
        await stream.writeSSE({ data: '[DONE]' })
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'completion turn failed')
        const payload = {
          message: 'the turn failed; see the server log',
          type: 'internal',
          code: 'internal',
          param: null,
        }
        await stream.writeSSE({ data: JSON.stringify({ error: payload }) })
        await stream.writeSSE({ data: '[DONE]' })
      },
    )
  })
}
