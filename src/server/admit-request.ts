/**
 * The HTTP side of the admission (src/admission/). Each route declares, where it is registered, what
 * it admits: `admit('http_chat')` (a door of doors.ts: the chat surface, that door's session checks
 * in `resolveRequestSession` and its budget before the handler), `admit('chat')` (the chat surface
 * without a session door: the WebSocket upgrade, the model list) or `admit('admin')`. The access
 * check (require-access.ts) reads the declaration of the route Hono matched, so no table of paths
 * has to agree with the router by hand, and a route that declares nothing is administration: it
 * fails closed, and admit-request.test.ts fails for it.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { type Admission, type Caller, type Door, doors } from '../admission/index.js'

declare module 'hono' {
  interface ContextVariableMap {
    /** The server's admission, for every route that names a session (`resolveRequestSession`). */
    admission: Admission | undefined
    /** The door the request's route declared (`admit`); undefined for a route without one. */
    door: Door | undefined
  }
}

/** What a route admits: one of the doors, the chat surface without a door, or administration. */
export type RouteAdmission = Door | 'chat' | 'admin'

/** The middleware that declares a route's admission; put it first among the route's handlers. */
export type AdmitRoute = (declared: RouteAdmission) => MiddlewareHandler

export interface CreateRouteAdmitOptions {
  /**
   * What a door's requests take before its route runs (the turn limits, the session request
   * bound), so a door's budget is declared with the door.
   */
  budgets?: Partial<Record<Door, MiddlewareHandler>>
}

const declarations = new WeakMap<object, RouteAdmission>()

function isDoor(declared: RouteAdmission): declared is Door {
  return (doors as readonly string[]).includes(declared)
}

export function createRouteAdmit(options: CreateRouteAdmitOptions = {}): AdmitRoute {
  return (declared) => {
    const door = isDoor(declared) ? declared : undefined
    const budget = door ? options.budgets?.[door] : undefined
    const admit: MiddlewareHandler = async (context, next) => {
      context.set('door', door)
      return budget ? budget(context, next) : next()
    }
    declarations.set(admit, declared)
    return admit
  }
}

/** The admission a handler declares, when it is one `admit` made. */
export function readRouteAdmission(handler: unknown): RouteAdmission | undefined {
  return typeof handler === 'function' ? declarations.get(handler) : undefined
}

/**
 * The admission declared by the first route Hono matched for this request that declares one (the
 * route that answers it: routes are matched in the order they were registered); undefined when none.
 */
export function findDeclaredAdmission(context: Context): RouteAdmission | undefined {
  for (const route of matchedRoutes(context)) {
    const declared = readRouteAdmission(route.handler)
    if (declared !== undefined) return declared
  }
  return undefined
}

/** Puts the server's admission on every request. */
export function provideAdmission(admission: Admission): MiddlewareHandler {
  return async (context, next) => {
    context.set('admission', admission)
    await next()
  }
}

/** The caller a request is, from what `requireAccess` set on it. */
export function readRequestCaller(context: Context): Caller {
  const client = context.get('client')
  if (client) return { kind: 'named_client', name: client.name, follow: client.follow }
  // `access` is admin for the admin token, and for every request of a server with no admin token
  // (then whoever may chat may also change the config: there is nothing above it to keep).
  return context.get('access') === 'admin' ? { kind: 'admin' } : { kind: 'client' }
}
