import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchRemoteImage } from './fetch-remote-image.js'

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82])
let server: Server
let base: string
const hits: string[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '')
    if (request.url === '/cat.png') return response.end(png)
    if (request.url === '/big.png') return response.end(Buffer.concat([png, Buffer.alloc(5000)]))
    if (request.url === '/endless.png') {
      // No length given, and more bytes than allowed: the limit must cut the stream.
      response.write(png)
      const timer = setInterval(() => response.write(Buffer.alloc(1000)), 5)
      response.on('close', () => clearInterval(timer))
      return
    }
    if (request.url === '/page.html') return response.end('<html>not an image</html>')
    if (request.url === '/hang.png') return
    if (request.url === '/to-cat') {
      response.writeHead(302, { location: '/cat.png' })
      return response.end()
    }
    if (request.url === '/to-file') {
      response.writeHead(302, { location: 'file:///etc/passwd' })
      return response.end()
    }
    if (request.url === '/loop') {
      response.writeHead(302, { location: '/loop' })
      return response.end()
    }
    response.statusCode = 404
    response.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const fetchLocal = (path: string, extra: { maxBytes?: number; timeoutMs?: number } = {}) =>
  fetchRemoteImage({ url: `${base}${path}`, maxBytes: extra.maxBytes ?? 1000, allowPrivate: true, ...extra })

describe('fetchRemoteImage', () => {
  it('refuses loopback, private, link-local and metadata addresses unless allowed, without connecting', async () => {
    const before = hits.length
    for (const url of [
      `${base}/cat.png`,
      'http://10.0.0.8/cat.png',
      'http://192.168.1.1/cat.png',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/cat.png',
      'http://[fd00::1]/cat.png',
      'http://[::ffff:127.0.0.1]/cat.png',
      'http://0.0.0.0/cat.png',
    ]) {
      const result = await fetchRemoteImage({ url, maxBytes: 1000, allowPrivate: false })
      expect(result.ok, url).toBe(false)
      if (!result.ok) expect(result.reason).toContain('assets.allow_private_urls')
    }
    expect(hits.length).toBe(before)
  })

  it('checks every address a name resolves to', async () => {
    const result = await fetchRemoteImage({
      url: 'http://images.example/cat.png',
      maxBytes: 1000,
      allowPrivate: false,
      resolve: async () => ['93.184.216.34', '127.0.0.1'],
    })
    expect(result).toMatchObject({
      ok: false,
      reason: expect.stringContaining('loopback address (127.0.0.1)'),
    })
  })

  it('connects to the address it checked, whatever the name', async () => {
    const port = new URL(base).port
    const result = await fetchRemoteImage({
      url: `http://images.example:${port}/cat.png`,
      maxBytes: 1000,
      allowPrivate: true,
      resolve: async () => ['127.0.0.1'],
    })
    expect(result).toMatchObject({ ok: true, mediaType: 'image/png' })
  })

  it.each([
    ['file:///etc/passwd', 'only http and https'],
    ['ftp://example.com/cat.png', 'only http and https'],
    ['not a url', 'not a valid URL'],
  ])('refuses %s', async (url, reason) => {
    const result = await fetchRemoteImage({ url, maxBytes: 1000, allowPrivate: true })
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining(reason) })
  })

  it('fetches an image when allowed, following a redirect', async () => {
    expect(await fetchLocal('/cat.png')).toMatchObject({ ok: true, mediaType: 'image/png' })
    expect(await fetchLocal('/to-cat')).toMatchObject({ ok: true, mediaType: 'image/png' })
  })

  it('checks where a redirect goes, and how many there are', async () => {
    expect(await fetchLocal('/to-file')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('only http'),
    })
    expect(await fetchLocal('/loop')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('redirects'),
    })
  })

  it('keeps to the size limit, declared or not', async () => {
    expect(await fetchLocal('/big.png')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('max_bytes'),
    })
    expect(await fetchLocal('/endless.png', { maxBytes: 20_000 })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('max_bytes'),
    })
  })

  it('keeps to the deadline', async () => {
    const result = await fetchLocal('/hang.png', { timeoutMs: 200 })
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('no answer within 200 ms') })
  }, 5000)

  it('takes only image bytes and a 200 answer', async () => {
    expect(await fetchLocal('/page.html')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not a PNG'),
    })
    expect(await fetchLocal('/missing.png')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('HTTP 404'),
    })
  })

  it('leaves the query out of what it reports', async () => {
    const result = await fetchRemoteImage({
      url: 'http://10.0.0.8/cat.png?signature=s3cr3t',
      maxBytes: 1000,
      allowPrivate: false,
    })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).not.toContain('s3cr3t')
  })
})
