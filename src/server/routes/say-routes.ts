/**
 * Speaking for the session's owner over HTTP: `POST /api/sessions/:id/say` body
 * `{character?, text, emotion?}` → 202 `{turn}` (the character says the words; its turn goes to the
 * session's followers and connectors) and `POST /api/sessions/:id/events` body
 * `{character?, text, respond?}` → 201 `{id}`, with `turn` when `respond` is true. Both need the
 * admin token or a named client that follows the session (src/admission/), and each takes one turn
 * of the caller's HTTP turn limits (`server.limits`), as `/api/chat` does.
 */
import type { Hono } from 'hono'
import { respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { eventBodySchema, sayBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'

export function registerSayRoutes(app: Hono, dependencies: ServerDependencies): void {
  const { charpipe, admit } = dependencies

  app.post('/api/sessions/:id/say', admit('http_say'), async (context) => {
    const body = await readJsonBody(context, sayBodySchema)
    if (!body.ok) return body.response
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, context.req.param('id'))
    if (resolved.response) return resolved.response
    try {
      return context.json(charpipe.sessions.say({ ...body.value, session: resolved.session }), 202)
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.post('/api/sessions/:id/events', admit('http_event'), async (context) => {
    const body = await readJsonBody(context, eventBodySchema)
    if (!body.ok) return body.response
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, context.req.param('id'))
    if (resolved.response) return resolved.response
    try {
      return context.json(await charpipe.sessions.event({ ...body.value, session: resolved.session }), 201)
    } catch (error) {
      return respondWithError(context, error)
    }
  })
}
