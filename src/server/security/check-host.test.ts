/**
 * The Host table, through the whole server app in memory: names that are this server are answered,
 * everything else (the DNS-rebinding case) gets 403 before any route, the health check included.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../characters/load-config.js'
import { createFakeCharpipe } from '../../testing/create-fake-charpipe.js'
import { type CharpipeServer, createServer } from '../create-server.js'

let folder: string
let server: CharpipeServer

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-host-'))
  const { config } = parseConfig({
    server: { host: '0.0.0.0', allowed_hosts: ['chat.example.com', '.home.arpa'] },
  })
  server = await createServer({
    charpipe: createFakeCharpipe({ config }),
    config,
    configPath: join(folder, 'config.yaml'),
    staticDir: folder,
    watchConfig: false,
    host: 'charpipe-box',
  })
})

afterAll(async () => {
  await server.close()
  await rm(folder, { recursive: true, force: true })
})

const request = (host: string, path = '/api/config') =>
  server.app.request(`http://placeholder${path}`, { headers: { host } })

describe('Host allowlist', () => {
  it.each([
    ['127.0.0.1:8080', 200],
    ['127.0.0.1', 200],
    ['localhost:8080', 200],
    ['LOCALHOST:8080', 200],
    ['localhost.:8080', 200],
    ['app.localhost:8080', 200],
    ['[::1]:8080', 200],
    ['192.168.1.20:8080', 200],
    ['0.0.0.0:8080', 200],
    ['charpipe-box:8080', 200],
    ['chat.example.com', 200],
    ['home.arpa:8080', 200],
    ['pc.home.arpa:8080', 200],
    ['evil.example', 403],
    ['evil.example:8080', 403],
    ['127.0.0.1.evil.example', 403],
    ['localhost.evil.example:8080', 403],
    ['chat.example.com.evil.example', 403],
    ['notchat.example.com', 403],
    ['evilhome.arpa', 403],
    ['2130706433:8080', 403],
    ['localhost:80:80', 403],
    ['[::1', 403],
    ['a b', 403],
    ['', 403],
  ])('Host %j → %i', async (host, status) => {
    const response = await request(host)
    expect(response.status).toBe(status)
    if (status === 403) {
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('forbidden')
      expect(body.error.message).toContain('server.allowed_hosts')
    }
  })

  it('refuses before any route runs, the health check and the page included', async () => {
    expect((await request('evil.example', '/healthz')).status).toBe(403)
    expect((await request('evil.example', '/')).status).toBe(403)
    expect((await request('evil.example', '/ws')).status).toBe(403)
    expect((await request('127.0.0.1', '/healthz')).status).toBe(200)
  })

  it('follows server.allowed_hosts when the config changes', async () => {
    expect((await request('new.example')).status).toBe(403)
    const previous = server.configManager.current()
    await server.configManager.update({ server: { allowed_hosts: ['new.example'] } })
    try {
      expect((await request('new.example')).status).toBe(200)
      expect((await request('chat.example.com')).status).toBe(403)
    } finally {
      await server.configManager.update({ server: { allowed_hosts: previous.server.allowed_hosts } })
    }
  })

  it('turns the check off with "*"', async () => {
    await server.configManager.update({ server: { allowed_hosts: ['*'] } })
    try {
      expect((await request('anything.example')).status).toBe(200)
    } finally {
      await server.configManager.update({ server: { allowed_hosts: ['chat.example.com', '.home.arpa'] } })
    }
  })
})
