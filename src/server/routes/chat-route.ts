/**
 * `POST /api/chat`: one turn as Server-Sent Events, one message per turn event
 * (`event: <type>`, `data: <json>`): admitted by its door (`http_chat`), run, written by its dialect
 * (sse-chat-dialect.ts) into the bounded writer, through the driver (drive-turn.ts). A client that goes away interrupts the turn, and so does one
 * that stops reading, past `server.ws_max_buffered_bytes` waiting for it (bound-stream-writes.ts).
 * `POST /api/sessions/:id/observe`: a line said in the session that needs no reply → 201 `{id}`.
 */
import type { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { boundReaderOf } from '../bound-stream-writes.js'
import { convertWireInput } from '../convert-wire-input.js'
import { driveTurn } from '../drive-turn.js'
import { respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { chatBodySchema, observeBodySchema, openBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'
import { createSseChatDialect } from '../sse-chat-dialect.js'
import { streamTurn } from '../stream-turn.js'

export function registerChatRoute(app: Hono, dependencies: ServerDependencies): void {
  const { admit } = dependencies
  app.post('/api/chat', admit('http_chat'), async (context) => {
    const body = await readJsonBody(context, chatBodySchema)
    if (!body.ok) return body.response
    const controller = new AbortController()
    const named = body.value.session ?? 'default'
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, named)
    if (resolved.response) return resolved.response
    const input = convertWireInput({ ...body.value, session: resolved.session })
    return streamSSE(
      context,
      async (stream) => {
        stream.onAbort(() => controller.abort())
        const reader = boundReaderOf(context, stream, dependencies)
        await driveTurn({
          source: {
            events: streamTurn({
              charpipe: dependencies.charpipe,
              input,
              signal: controller.signal,
              metrics: dependencies.metrics,
              endpoint: 'sse',
            }),
          },
          dialect: createSseChatDialect(named),
          transport: { write: (message) => void reader.writeSSE(message), flushed: () => reader.flushed() },
          onFailure: (error) => dependencies.logger.error({ err: error }, 'chat turn failed'),
        })
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'chat turn failed')
        const payload = { type: 'error', code: 'internal', message: 'the turn failed; see the server log' }
        await stream.writeSSE({ event: 'error', data: JSON.stringify(payload) })
      },
    )
  })

  // The `open` frame over HTTP: a new session with a greeting character gets the greeting, stored.
  app.post('/api/sessions/:id/open', admit('http_open'), async (context) => {
    const body = await readJsonBody(context, openBodySchema)
    if (!body.ok) return body.response
    const session = context.req.param('id')
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, session)
    if (resolved.response) return resolved.response
    try {
      const { character } = body.value
      const { greeting } = await dependencies.charpipe.sessions.open({
        session: resolved.session,
        ...(character ? { character } : {}),
      })
      return context.json({
        session,
        ...(character ? { character } : {}),
        greeting: greeting
          ? { text: greeting.content, emotion: greeting.emotion, turn: greeting.turn }
          : null,
      })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.post('/api/sessions/:id/observe', admit('http_observe'), async (context) => {
    const body = await readJsonBody(context, observeBodySchema)
    if (!body.ok) return body.response
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, context.req.param('id'))
    if (resolved.response) return resolved.response
    try {
      const observed = dependencies.charpipe.sessions.observe({ ...body.value, session: resolved.session })
      return context.json(observed, 201)
    } catch (error) {
      return respondWithError(context, error)
    }
  })
}
