/**
 * `GET /api/connectors` (each connector's state, sessions and message counts) and the reverse
 * WebSocket paths OneBot implementations dial (`connectors.onebot[].listen`). A reverse connection
 * must present `X-Client-Role: Universal`, a numeric `X-Self-ID` and the connector's access token
 * (`Authorization: Bearer …`, or `?access_token=`, as OneBot v11 allows); with no token configured
 * only a process on this machine may connect, never through a proxy. A refusal is answered before the upgrade with its
 * status (an upgrade's answer carries no body) and logged with the reason, never the token.
 */
import type { IncomingMessage } from 'node:http'
import type { Hono } from 'hono'
import type { UpgradeWebSocket } from 'hono/ws'
import type { ConnectorSet, OnebotConnector } from '../../connectors/index.js'
import type { Logger } from '../../shared/logger.js'
import type { AdmitRoute } from '../admit-request.js'
import { isLoopbackHost } from '../is-loopback-host.js'
import { findForwardingHeader } from '../security/find-forwarding-header.js'

export interface RegisterConnectorRoutesOptions {
  connectors: ConnectorSet
  /** Declares what a route admits (admit-request.ts). */
  admit: AdmitRoute
  upgradeWebSocket: UpgradeWebSocket
  /** Sets the largest frame the next upgraded socket accepts. */
  setMaxPayload: (bytes: number) => void
  logger: Logger
}

const maxOnebotFrameBytes = 4 * 1024 * 1024

export function registerConnectorRoutes(app: Hono, options: RegisterConnectorRoutesOptions): void {
  const { connectors, logger } = options
  app.get('/api/connectors', options.admit('admin'), (context) =>
    context.json({ connectors: connectors.list() }),
  )

  const upgrade = options.upgradeWebSocket((context) => {
    const connector = connectors.findReverse(context.req.path)
    const selfId = context.req.header('x-self-id') ?? ''
    let handle: { receive(text: string): void; detach(reason: string): void } | undefined
    return {
      onOpen(_event, socket) {
        if (!connector) return socket.close(1011, 'the connector is gone')
        handle = connector.attachReverse(
          { send: (text) => socket.send(text), close: (code, reason) => socket.close(code, reason) },
          selfId,
        )
      },
      onMessage(event) {
        if (typeof event.data === 'string') handle?.receive(event.data)
      },
      onClose(event) {
        handle?.detach(`the implementation disconnected (${event.code})`)
      },
    }
  })

  app.get('*', async (context, next) => {
    const connector = connectors.findReverse(context.req.path)
    if (!connector) return next()
    const refusal = findRefusal(context.req.raw.headers, context.req.url, connector, context.env)
    if (refusal) {
      logger.warn(
        { connector: connector.status().name, reason: refusal.message },
        'reverse OneBot connection refused',
      )
      return context.json({ error: { code: refusal.code, message: refusal.message } }, refusal.status)
    }
    options.setMaxPayload(maxOnebotFrameBytes)
    return upgrade(context, next)
  })
}

interface Refusal {
  status: 400 | 401
  code: 'bad_request' | 'unauthorized'
  message: string
}

function findRefusal(
  headers: Headers,
  url: string,
  connector: OnebotConnector,
  env: unknown,
): Refusal | undefined {
  if (headers.get('upgrade')?.toLowerCase() !== 'websocket')
    return { status: 400, code: 'bad_request', message: 'this path takes a OneBot reverse WebSocket only' }
  const role = headers.get('x-client-role') ?? ''
  if (role.toLowerCase() !== 'universal')
    return {
      status: 400,
      code: 'bad_request',
      message: `X-Client-Role must be Universal (got ${JSON.stringify(role.slice(0, 20))}): set the implementation's reverse WebSocket to Universal`,
    }
  if (!/^\d{1,20}$/.test(headers.get('x-self-id') ?? ''))
    return { status: 400, code: 'bad_request', message: 'X-Self-ID must be the bot account number' }
  if (!connector.hasAccessToken) {
    // Behind a local proxy every peer is this machine: a forwarded connection needs the token.
    const forwarding = findForwardingHeader(headers)
    if (forwarding)
      return {
        status: 401,
        code: 'unauthorized',
        message: `set access_token for this connector: a forwarded connection (it carries ${forwarding}) needs one`,
      }
    const peer = (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ?? ''
    if (!isLoopbackHost(peer))
      return {
        status: 401,
        code: 'unauthorized',
        message: 'set access_token for this connector: without one only this machine may connect',
      }
    return undefined
  }
  const presented =
    /^(?:Bearer|Token)\s+(.+)$/i.exec(headers.get('authorization') ?? '')?.[1] ??
    new URL(url).searchParams.get('access_token') ??
    undefined
  if (!connector.acceptsToken(presented))
    return {
      status: 401,
      code: 'unauthorized',
      message: presented ? 'the access token is not valid' : 'an access token is required',
    }
  return undefined
}
