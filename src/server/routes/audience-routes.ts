/**
 * The audience over HTTP. `POST /api/sessions/:id/audience` (chat surface) takes a batch of
 * messages → 202 `{accepted, dropped}`; each request takes one of its origin's requests a minute
 * (limit-session-requests.ts, before the route), and each reply the server starts to its lines one
 * of its turns (create-audience-origins.ts), as does each idle turn in the quiet after them. An
 * origin keeps at most `server.limits.live_sessions` sessions live with its lines; lines for one
 * more are refused 429 `rate_limited`, naming the setting.
 * The owner's view of the live queue and moderation are on the admin surface:
 * `GET /api/sessions/:id/audience` → `{session, waiting, selected, dropped}`,
 * `POST /api/sessions/:id/audience/:message/pin` and `DELETE /api/sessions/:id/audience/:message`
 * → 204, or 404 when that message is not waiting.
 */
import type { Context, Hono } from 'hono'
import { audienceSourceOf } from '../../admission/index.js'
import { readRequestCaller } from '../admit-request.js'
import type { AudienceOrigins } from '../create-audience-origins.js'
import { respondWithError } from '../error-response.js'
import { readAudienceOrigin } from '../limit-session-requests.js'
import { readJsonBody } from '../read-json-body.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { audienceBodySchema } from '../request-schemas.js'
import { requestClientKey } from '../require-access.js'
import type { ServerDependencies } from '../server-dependencies.js'

function notWaiting(context: Context) {
  const id = context.req.param('message')
  return context.json(
    { error: { code: 'not_found', message: `no audience message ${JSON.stringify(id)} is waiting` } },
    404,
  )
}

export interface AudienceRouteDependencies extends ServerDependencies {
  /** Whose requests and turns the audience lines count against. */
  audienceOrigins: AudienceOrigins
}

export function registerAudienceRoutes(app: Hono, dependencies: AudienceRouteDependencies): void {
  const { charpipe, audienceOrigins, admit } = dependencies
  app.post('/api/sessions/:id/audience', admit('http_audience'), async (context) => {
    const origin = readAudienceOrigin(context, dependencies.configManager.current().server.trusted_proxies)
    const body = await readJsonBody(context, audienceBodySchema)
    if (!body.ok) return body.response
    const resolved = resolveRequestSession(
      context,
      dependencies.sessionOwners,
      context.req.param('id'),
      body.value.messages,
    )
    if (resolved.response) return resolved.response
    const live = audienceOrigins.admitSession(
      origin,
      `${resolved.session}\u0000${body.value.character ?? ''}`,
    )
    if (!live.ok) {
      dependencies.admission?.count('http_audience', 'rate_limited')
      return context.json({ error: { code: 'rate_limited', message: live.message } }, 429)
    }
    try {
      const messages = resolved.messages ?? body.value.messages
      // Ids are compared within the sender's own source; chat-token requests without a key share one.
      const source = audienceSourceOf(readRequestCaller(context), requestClientKey(context), 'chat')
      return context.json(
        charpipe.audience.send({
          ...body.value,
          messages,
          session: resolved.session,
          source,
          admitTurn: audienceOrigins.admitTurnOf(origin),
          keeper: live.keeper,
        }),
        202,
      )
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.get('/api/sessions/:id/audience', admit('admin'), (context) => {
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, context.req.param('id'))
    if (resolved.response) return resolved.response
    try {
      const character = context.req.query('character')
      const queue = charpipe.audience.queue({
        session: resolved.session,
        ...(character ? { character } : {}),
      })
      return context.json({ ...queue, session: context.req.param('id') })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  const moderate = (action: 'pin' | 'drop') => (context: Context) => {
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, context.req.param('id') ?? '')
    if (resolved.response) return resolved.response
    try {
      const character = context.req.query('character')
      const done = charpipe.audience.moderate({
        session: resolved.session,
        id: context.req.param('message') ?? '',
        action,
        ...(character ? { character } : {}),
      })
      return done ? context.body(null, 204) : notWaiting(context)
    } catch (error) {
      return respondWithError(context, error)
    }
  }
  app.post('/api/sessions/:id/audience/:message/pin', admit('admin'), moderate('pin'))
  app.delete('/api/sessions/:id/audience/:message', admit('admin'), moderate('drop'))
}
