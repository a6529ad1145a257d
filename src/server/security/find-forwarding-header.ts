/**
 * The headers a proxy adds when it passes a request on. "Without a token, only from this machine"
 * trusts the socket's peer, and behind a local proxy every peer is this machine: a request that
 * carries any of these was forwarded, and a server without a token refuses it (require-access.ts,
 * and the OneBot reverse paths without `access_token`). One list, so the API, `/ws`, `/v1/*` and
 * the connectors' paths agree on what "forwarded" is.
 */

/** As proxies spell them; compared without regard to case. */
export const forwardingHeaders = [
  'Forwarded',
  'X-Forwarded-For',
  'X-Forwarded-Host',
  'X-Forwarded-Proto',
  'X-Forwarded-Server',
  'X-Real-IP',
  'True-Client-IP',
  'CF-Connecting-IP',
  'X-Client-IP',
  'X-Cluster-Client-IP',
  'Fastly-Client-IP',
  'X-Original-Forwarded-For',
  'Client-IP',
  'X-ProxyUser-Ip',
  'Via',
] as const

export type ForwardingHeader = (typeof forwardingHeaders)[number]

/** The first forwarding header `headers` carries (even empty), or undefined for a direct request. */
export function findForwardingHeader(headers: Headers): ForwardingHeader | undefined {
  return forwardingHeaders.find((name) => headers.has(name))
}
