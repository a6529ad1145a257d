/**
 * Admission declared where a route is registered: the access a route needs and the door it is come
 * from what it declared (`admit`), a route that declares nothing is administration (fails closed),
 * and every route of the server declares one.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono, type MiddlewareHandler } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAdmission } from '../admission/index.js'
import { parseConfig } from '../characters/load-config.js'
import { createFakeCharpipe } from '../testing/create-fake-charpipe.js'
import { createRouteAdmit, provideAdmission, readRouteAdmission } from './admit-request.js'
import { type CharpipeServer, createServer } from './create-server.js'
import { createSessionOwners } from './create-session-owners.js'
import { resolveRequestSession } from './refuse-foreign-session.js'
import { requireAccess } from './require-access.js'

const chatToken = 'chat-token-0123456789abcdef'
const adminToken = 'admin-token-0123456789abcdef'

/** The paths the access check guards: every route there must declare what it admits. */
const isGuarded = (path: string) =>
  path === '/api' ||
  path.startsWith('/api/') ||
  path.startsWith('/v1/') ||
  path === '/ws' ||
  path === '/metrics'

/**
 * `METHOD path` of each guarded route that declares nothing before its handlers. A route of one
 * method (`app.get`…) must declare; an `app.all` or `app.use` must when it has a final handler (one
 * that takes no `next`), so middlewares alone need none.
 */
function findUndeclaredRoutes(app: Hono): string[] {
  const groups = new Map<string, { method: string; handlers: unknown[] }>()
  for (const route of app.routes) {
    if (!isGuarded(route.path)) continue
    const key = `${route.method} ${route.path}`
    const group = groups.get(key) ?? { method: route.method, handlers: [] }
    group.handlers.push(route.handler)
    groups.set(key, group)
  }
  const undeclared: string[] = []
  for (const [key, { method, handlers }] of groups) {
    const declaredAt = handlers.findIndex((handler) => readRouteAdmission(handler) !== undefined)
    const finalAt = handlers.findIndex((handler) => (handler as (...parts: unknown[]) => unknown).length < 2)
    const needsDeclaration = method !== 'ALL' || finalAt !== -1
    if (needsDeclaration && (declaredAt === -1 || (finalAt !== -1 && declaredAt > finalAt)))
      undeclared.push(key)
  }
  return undeclared
}

describe('the routes of the server', () => {
  let folder: string
  let server: CharpipeServer
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'charpipe-admission-'))
    const { config } = parseConfig({ server: { token: chatToken, admin_token: adminToken } })
    server = await createServer({
      charpipe: createFakeCharpipe({ config }),
      config,
      configPath: join(folder, 'config.yaml'),
      staticDir: folder,
      watchConfig: false,
    })
  })
  afterAll(async () => {
    await server.close()
    await rm(folder, { recursive: true, force: true })
  })

  it('each declare what they admit where they are registered', () => {
    expect(server.app.routes.filter((route) => isGuarded(route.path)).length).toBeGreaterThan(40)
    expect(findUndeclaredRoutes(server.app)).toEqual([])
  })

  it('and one registered without a declaration is found', () => {
    const app = new Hono()
    const admit = createRouteAdmit()
    app.use('/api/*', async (_context, next) => next())
    app.get('/api/declared', admit('admin'), (context) => context.text('ok'))
    app.post('/api/undeclared', (context) => context.text('ok'))
    app.all('/v1/*', (context) => context.text('ok'))
    expect(findUndeclaredRoutes(app)).toEqual(['POST /api/undeclared', 'ALL /v1/*'])
  })

  it('declare the chat surface for the chat token and administration for the admin token', async () => {
    const call = (method: string, path: string, token: string) =>
      server.app.request(path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(method === 'GET' ? {} : { body: '{}' }),
      })
    // Chat routes take the chat token (whatever they then answer); administration refuses it.
    for (const [method, path] of [
      ['GET', '/api/sessions/s/messages'],
      ['POST', '/api/sessions/s/open'],
      ['GET', '/v1/models'],
      ['GET', '/v1/responses/resp_1'],
    ] as const)
      expect((await call(method, path, chatToken)).status, `${method} ${path}`).not.toBe(401)
    for (const [method, path] of [
      ['GET', '/api/config'],
      ['GET', '/api/sessions/s/audience'],
      ['DELETE', '/api/sessions/s'],
      ['GET', '/metrics'],
      ['GET', '/api/no-such-route'],
    ] as const) {
      expect((await call(method, path, chatToken)).status, `${method} ${path}`).toBe(401)
      expect((await call(method, path, adminToken)).status, `${method} ${path}`).not.toBe(401)
    }
  })
})

describe('requireAccess with declared routes', () => {
  const tokens = { token: chatToken, adminToken }
  const budgetCalls: string[] = []
  const budget: MiddlewareHandler = async (context, next) => {
    budgetCalls.push(context.req.path)
    await next()
  }
  const admit = createRouteAdmit({ budgets: { http_chat: budget } })
  const app = new Hono()
  app.use('/api/*', requireAccess({ readTokens: () => tokens }))
  app.get('/api/undeclared', (context) => context.text('served'))
  app.get('/api/chat-surface', admit('chat'), (context) =>
    context.json({ door: context.get('door') ?? null }),
  )
  app.post('/api/turn', admit('http_chat'), (context) => context.json({ door: context.get('door') ?? null }))
  const call = (method: string, path: string, token: string) =>
    app.request(path, { method, headers: { authorization: `Bearer ${token}` } })

  it('treats a route that declares nothing as administration (fails closed)', async () => {
    const refused = await call('GET', '/api/undeclared', chatToken)
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'server.admin_token',
    )
    expect((await call('GET', '/api/undeclared', adminToken)).status).toBe(200)
  })

  it('serves a declared chat route to the chat token, with the declared door and its budget', async () => {
    const surface = await call('GET', '/api/chat-surface', chatToken)
    expect(surface.status).toBe(200)
    expect(await surface.json()).toEqual({ door: null })
    budgetCalls.length = 0
    const turn = await call('POST', '/api/turn', chatToken)
    expect(await turn.json()).toEqual({ door: 'http_chat' })
    expect(budgetCalls).toEqual(['/api/turn'])
  })

  it('takes no budget for a request refused at the access check', async () => {
    budgetCalls.length = 0
    expect((await call('POST', '/api/turn', 'no-such-token-0123456789')).status).toBe(401)
    expect(budgetCalls).toEqual([])
  })
})

describe('resolveRequestSession on a declared route', () => {
  const admit = createRouteAdmit()
  const owners = createSessionOwners()
  const app = new Hono()
  app.use('/api/*', provideAdmission(createAdmission()))
  app.use('/api/*', requireAccess({ readTokens: () => ({ token: chatToken, adminToken }) }))
  const answer = (context: Parameters<MiddlewareHandler>[0]) => {
    const resolved = resolveRequestSession(context, owners, context.req.query('session') ?? '')
    return resolved.response ?? context.json({ session: resolved.session })
  }
  app.post('/api/door', admit('http_chat'), answer)
  app.post('/api/no-door', admit('chat'), answer)
  const call = (path: string, session: string, token: string) =>
    app.request(`${path}?session=${encodeURIComponent(session)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })

  it("passes the declared door's admission: a connector's session is refused to a chat client", async () => {
    expect((await call('/api/door', 'mine', chatToken)).status).toBe(200)
    const refused = await call('/api/door', 'onebot:qq:group:1', chatToken)
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('http_chat')
    expect((await call('/api/door', 'onebot:qq:group:1', adminToken)).status).toBe(200)
  })

  it('refuses a session on a chat route that declares no door, except to the admin token', async () => {
    const refused = await call('/api/no-door', 'mine', chatToken)
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'declares no door',
    )
    expect((await call('/api/no-door', 'mine', adminToken)).status).toBe(200)
  })
})
