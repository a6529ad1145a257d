/**
 * The admin API: config (masked, validated, hot-applied), processors, context preview, session
 * history, the tools the character may call (with each MCP server's state) and the provider registry
 * for the web page's picker.
 */
import type { Hono } from 'hono'
import * as z from 'zod'
import { builtinProviders } from '../../config/provider-registry.js'
import { respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import { resolveRequestSession } from '../refuse-foreign-session.js'
import { previewBodySchema } from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'

const anyJson = z.unknown()

export function registerAdminRoutes(app: Hono, dependencies: ServerDependencies): void {
  const { charpipe, configManager, admit } = dependencies

  app.get('/api/config', admit('admin'), (context) => context.json(configManager.masked()))

  // Which file the server runs on and whether it is usable now (the page's banner for hand edits).
  app.get('/api/config/status', admit('admin'), (context) => context.json(configManager.status()))

  app.put('/api/config', admit('admin'), async (context) => {
    const body = await readJsonBody(context, anyJson)
    if (!body.ok) return body.response
    try {
      await configManager.update(body.value)
      return context.json(configManager.masked())
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.get('/api/processors', admit('admin'), (context) =>
    context.json(
      charpipe.inspect.processors().map((processor) => ({
        id: processor.id,
        name: processor.name,
        description: processor.description,
        priority: processor.priority,
        enabled: processor.enabled,
        isCore: processor.isCore,
        configFields: processor.configFields,
        settings: processor.settings,
      })),
    ),
  )

  app.post('/api/preview', admit('admin'), async (context) => {
    const body = await readJsonBody(context, previewBodySchema)
    if (!body.ok) return body.response
    try {
      return context.json(
        await charpipe.inspect.preview({ ...body.value, session: body.value.session ?? 'default' }),
      )
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.get('/api/sessions/:id/messages', admit('http_messages'), async (context) => {
    const resolved = resolveRequestSession(context, dependencies.sessionOwners, context.req.param('id'))
    if (resolved.response) return resolved.response
    const limitText = context.req.query('limit')
    const limit = limitText === undefined ? undefined : Number(limitText)
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      return context.json(
        { error: { code: 'bad_request', message: 'limit: expected a positive integer' } },
        400,
      )
    }
    try {
      const character = context.req.query('character')
      const messages = await charpipe.sessions.history({
        session: resolved.session,
        limit,
        beforeId: context.req.query('before'),
        ...(character ? { character } : {}),
      })
      return context.json({ session: context.req.param('id'), messages })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.delete('/api/sessions/:id', admit('admin'), async (context) => {
    try {
      // Without ?character= the session goes with every character it was held with.
      const character = context.req.query('character')
      await charpipe.sessions.clear({ session: context.req.param('id'), ...(character ? { character } : {}) })
      return context.json({ deleted: true, session: context.req.param('id') })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.get('/api/tools', admit('admin'), (context) => context.json(charpipe.inspect.tools()))

  app.get('/api/providers', admit('admin'), (context) =>
    context.json(
      builtinProviders.map((provider) => ({
        name: provider.name,
        label: provider.label,
        apiType: provider.apiType,
        defaultBaseUrl: provider.defaultBaseUrl,
        defaultModel: provider.defaultModel,
        requiresApiKey: provider.requiresApiKey,
        contextWindow: provider.contextWindow,
      })),
    ),
  )
}
