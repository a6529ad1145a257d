/**
 * `POST /api/chat`: one turn as Server-Sent Events, one message per turn event
 * (`event: <type>`, `data: <json>`). A client that goes away interrupts the turn.
 * `POST /api/sessions/:id/observe`: a line said in the session that needs no reply → 201 `{id}`.
 */
import type { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { convertWireInput } from '../convert-wire-input.js'
import { respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import { refuseForeignSession } from '../refuse-foreign-session.js'
import { chatBodySchema, observeBodySchema, openBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'
import { streamTurn } from '../stream-turn.js'

export function registerChatRoute(app: Hono, dependencies: ServerDependencies): void {
  app.post('/api/chat', async (context) => {
    const body = await readJsonBody(context, chatBodySchema)
    if (!body.ok) return body.response
    const controller = new AbortController()
    const input = convertWireInput({ ...body.value, session: body.value.session ?? 'default' })
    const refused = refuseForeignSession(context, dependencies.sessionOwners, input.session)
    if (refused) return refused
    return streamSSE(
      context,
      async (stream) => {
        stream.onAbort(() => controller.abort())
        const events = streamTurn({
          charpipe: dependencies.charpipe,
          input,
          signal: controller.signal,
          metrics: dependencies.metrics,
          endpoint: 'sse',
        })
        for await (const event of events) {
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event) })
        }
      },
      async (error, stream) => {
        dependencies.logger.error({ err: error }, 'chat turn failed')
        const payload = { type: 'error', code: 'internal', message: 'the turn failed; see the server log' }
        await stream.writeSSE({ event: 'error', data: JSON.stringify(payload) })
      },
    )
  })

  // The `open` frame over HTTP: a new session with a greeting character gets the greeting, stored.
  app.post('/api/sessions/:id/open', async (context) => {
    const body = await readJsonBody(context, openBodySchema)
    if (!body.ok) return body.response
    const session = context.req.param('id')
    const foreign = refuseForeignSession(context, dependencies.sessionOwners, session)
    if (foreign) return foreign
    try {
      const { character } = body.value
      const { greeting } = await dependencies.charpipe.open({ session, ...(character ? { character } : {}) })
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

  app.post('/api/sessions/:id/observe', async (context) => {
    const body = await readJsonBody(context, observeBodySchema)
    if (!body.ok) return body.response
    const foreign = refuseForeignSession(context, dependencies.sessionOwners, context.req.param('id'))
    if (foreign) return foreign
    try {
      const observed = dependencies.charpipe.observe({ ...body.value, session: context.req.param('id') })
      return context.json(observed, 201)
    } catch (error) {
      return respondWithError(context, error)
    }
  })
}
