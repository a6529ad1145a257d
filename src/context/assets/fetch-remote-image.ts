/**
 * Fetches an image by URL for a describer that cannot take a URL (the only time the server fetches
 * what a user named). Anyone who can send a message names the URL, so the fetch must not become a
 * way into the server's network: only `http:`/`https:`; the host name is resolved and every address
 * checked (no loopback, private, link-local, metadata or other non-public ranges unless
 * `assets.allow_private_urls`), and the connection goes to the checked address, so a name cannot
 * resolve to another one in between; redirects are checked the same way (three at most); the body
 * is limited to `assets.max_bytes` and the whole fetch to a deadline; the bytes must be an image.
 */
import { lookup as lookupHost } from 'node:dns/promises'
import { type IncomingMessage, request as requestHttp } from 'node:http'
import { request as requestHttps } from 'node:https'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { sniffMediaType } from './sniff-media-type.js'

const acceptedImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
const maxRedirects = 3

/** The longest one fetch (with its redirects) may take. */
export const imageFetchTimeoutMs = 10_000

export interface FetchRemoteImageOptions {
  url: string
  maxBytes: number
  /** Allow addresses outside the public unicast ranges (`assets.allow_private_urls`). */
  allowPrivate: boolean
  /** @default imageFetchTimeoutMs */
  timeoutMs?: number
  signal?: AbortSignal
  /** Resolves a host name to its addresses. @default the system resolver */
  resolve?: (hostname: string) => Promise<string[]>
}

export type FetchRemoteImageResult =
  | { ok: true; bytes: Buffer; mediaType: string }
  | { ok: false; reason: string }

class RefusedError extends Error {}

export async function fetchRemoteImage(options: FetchRemoteImageOptions): Promise<FetchRemoteImageResult> {
  const timeoutMs = options.timeoutMs ?? imageFetchTimeoutMs
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  const shown = describeUrl(options.url)
  try {
    let url = options.url
    for (let redirects = 0; ; redirects++) {
      const response = await requestOnce(url, options, signal)
      const location = response.headers.location
      if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
        response.resume()
        if (redirects === maxRedirects) throw new RefusedError(`more than ${maxRedirects} redirects`)
        url = new URL(location, url).href
        continue
      }
      if (response.statusCode !== 200) {
        response.resume()
        throw new RefusedError(`the server answered HTTP ${response.statusCode}`)
      }
      const bytes = await readLimited(response, options.maxBytes)
      const mediaType = sniffMediaType(bytes)
      if (!mediaType || !acceptedImageTypes.has(mediaType))
        throw new RefusedError('its bytes are not a PNG, JPEG, GIF or WebP image')
      return { ok: true, bytes, mediaType }
    }
  } catch (error) {
    if (timeout.aborted)
      return { ok: false, reason: `image ${shown} not fetched: no answer within ${timeoutMs} ms` }
    if (options.signal?.aborted) return { ok: false, reason: `image ${shown} not fetched: the turn ended` }
    const why =
      error instanceof RefusedError ? error.message : `the fetch failed (${(error as Error).message})`
    return { ok: false, reason: `image ${shown} not fetched: ${why}` }
  }
}

async function requestOnce(
  url: string,
  options: FetchRemoteImageOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new RefusedError('it is not a valid URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new RefusedError(`only http and https URLs are fetched, not ${parsed.protocol}`)
  const address = await resolveCheckedAddress(parsed.hostname, options)
  // The connection goes to the address just checked, whatever the name resolves to by then.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    const family = address.includes(':') ? 6 : 4
    if ((lookupOptions as { all?: boolean }).all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }
  const request = parsed.protocol === 'https:' ? requestHttps : requestHttp
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(parsed, { lookup: pinned, signal, headers: { accept: 'image/*' } }, resolve)
    outgoing.once('error', reject)
    outgoing.end()
  })
}

async function resolveCheckedAddress(hostname: string, options: FetchRemoteImageOptions): Promise<string> {
  const bare = hostname.replace(/^\[|\]$/g, '')
  const addresses = ipaddr.isValid(bare)
    ? [bare]
    : await (options.resolve ?? resolveWithSystem)(bare).catch(() => {
        throw new RefusedError(`the host name ${JSON.stringify(bare)} does not resolve`)
      })
  if (addresses.length === 0) throw new RefusedError(`the host name ${JSON.stringify(bare)} does not resolve`)
  if (!options.allowPrivate) {
    for (const address of addresses) {
      const range = ipaddr.process(address).range()
      if (range !== 'unicast')
        throw new RefusedError(
          `${bare} is a ${range} address (${address}); set assets.allow_private_urls to fetch from such addresses`,
        )
    }
  }
  return ipaddr.process(addresses[0]!).toString()
}

async function resolveWithSystem(hostname: string): Promise<string[]> {
  return (await lookupHost(hostname, { all: true })).map((entry) => entry.address)
}

function readLimited(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.resume()
    return Promise.reject(new RefusedError(`it is ${declared} bytes, over assets.max_bytes (${maxBytes})`))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    response.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        response.destroy()
        reject(new RefusedError(`it is over assets.max_bytes (${maxBytes})`))
        return
      }
      chunks.push(chunk)
    })
    response.once('end', () => resolve(Buffer.concat(chunks)))
    response.once('error', reject)
    // Aborted mid-body (the deadline): no 'end' comes; settled promises ignore this.
    response.once('close', () => reject(new Error('the connection closed before the end')))
  })
}

// Enough of a URL to recognise it in a log, without a query that may carry a signature or token.
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.slice(0, 60)}`
  } catch {
    return JSON.stringify(url.slice(0, 40))
  }
}
