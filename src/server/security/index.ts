/**
 * The server's front door: every check a request passes before any route runs, one file per concern.
 * Order: the `Host` names this server (DNS rebinding) → a browser `Origin` is the server's own or
 * allowed (cross-site use) → CORS only for `server.allowed_origins` → bodies are JSON (no form posts)
 * → safety headers on every answer. The allowlists come from `server.*` and follow config reloads.
 * SECURITY.md says what this trusts and refuses.
 */
import type { Hono } from 'hono'
import type { CharpipeConfig } from '../../config/schema.js'
import { checkHost } from './check-host.js'
import { checkOrigin } from './check-origin.js'
import { createSecurityPolicyReader } from './create-security-policy.js'
import { grantCors } from './grant-cors.js'
import { type RequireJsonBodyOptions, requireJsonBody } from './require-json-body.js'
import { setPageHeaders } from './set-page-headers.js'

export interface MountSecurityOptions extends RequireJsonBodyOptions {
  /** The running config's `server` section (read per request; compiled again when it changes). */
  readServer: () => CharpipeConfig['server']
  /** The host the server listens on, when not `server.host`. */
  boundHost?: string
}

/** Puts the checks in front of every route of `app`; call before registering anything else. */
export function mountSecurity(app: Hono, options: MountSecurityOptions): void {
  const readPolicy = createSecurityPolicyReader(options.readServer, options.boundHost)
  app.use('*', setPageHeaders())
  app.use('*', checkHost(readPolicy))
  app.use('*', checkOrigin(readPolicy))
  app.use('*', grantCors(readPolicy))
  app.use('*', requireJsonBody(options))
}
