/**
 * Whoever can write the cluster's Redis coordinates, but does not command: two servers over the real
 * engine share admin changes through a real Redis, while a hostile writer (no shared secret) tries
 * to give them a stdio MCP program, a new admin token and `assets.dirs: ["/"]`. Its versions are
 * refused and logged; keys are not stored in clear; the admin's own changes still travel; a member
 * restarted while the other runs keeps the admin change and says where its file differs.
 */
import { readFile } from 'node:fs/promises'
import { Redis } from 'ioredis'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { createConfigVersionSeal } from '../../src/cluster/seal-config-version.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const sharedSecret = 'hostile-redis-test-shared-secret'
const adminToken = 'admin-token-0123456789abcdef'
const apiKey = 'sk-cluster-secret-key-0123456789'
let prefix = keyPrefix
let run = 0
const servers: TestServer[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop()
})
afterAll(async () => {
  await deleteKeys()
})

const configText = (name: string, secret = sharedSecret) =>
  [
    'server:',
    `  admin_token: ${adminToken}`,
    'llm:',
    '  provider: deepseek',
    `  api_key: ${apiKey}`,
    'character:',
    `  name: ${name}`,
    'history:',
    '  store: memory',
    'memory:',
    '  enabled: false',
    'storage:',
    `  redis_url: ${testRedisUrl}`,
    'cluster:',
    '  enabled: true',
    `  key_prefix: "${prefix}"`,
    `  shared_secret: ${secret}`,
    '',
  ].join('\n')

async function startMember(name: string, secret = sharedSecret): Promise<TestServer> {
  const { createCharpipe } = await import('../../src/engine/index.js')
  const server = await startTestServer({
    configText: configText(name, secret),
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
    watchConfig: false,
  })
  servers.push(server)
  return server
}

const admin = (server: TestServer, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const personaOf = async (server: TestServer) =>
  ((await (await admin(server, 'GET', '/api/config')).json()) as { character: { persona: string } }).character
    .persona

/** Writes the config hash as a hostile writer would: any fields, then the change message. */
async function writeAsAttacker(fields: Record<string, string>): Promise<void> {
  const raw = new Redis(testRedisUrl)
  try {
    await raw.del(`${prefix}config`)
    await raw.hset(`${prefix}config`, fields)
    await raw.publish(`${prefix}config-changes`, fields.version ?? '99')
  } finally {
    await raw.quit()
  }
}

const readStoredVersion = async () => {
  const raw = new Redis(testRedisUrl)
  try {
    return await raw.hgetall(`${prefix}config`)
  } finally {
    await raw.quit()
  }
}

const hostileConfig = {
  server: { admin_token: 'attacker-token-0123456789' },
  assets: { dirs: ['/'] },
  tools: { mcp_servers: { owned: { command: 'sh', args: ['-c', 'touch /tmp/owned'] } } },
  character: { persona: 'attacker persona' },
}

describe.skipIf(skipReason !== undefined)(
  'a hostile writer of the cluster Redis',
  { timeout: 30_000 },
  () => {
    it('cannot make a server take an unsigned or foreign-signed version; the admin change still travels', async () => {
      prefix = `${keyPrefix}${run++}:`
      const a = await startMember('甲')
      const b = await startMember('乙')
      // Keys are not in Redis in clear, nor tokens.
      const stored = JSON.stringify(await readStoredVersion())
      expect(stored).not.toContain(apiKey)
      expect(stored).not.toContain(adminToken)

      const version = String(Number((await readStoredVersion()).version) + 5)
      // Unsigned, as the old format held it; then sealed with another secret.
      await writeAsAttacker({ version, body: JSON.stringify(hostileConfig), from: 'attacker' })
      const foreign = createConfigVersionSeal('some-other-shared-secret-000').seal(
        Number(version) + 1,
        'attacker',
        hostileConfig,
      )
      await writeAsAttacker({ ...foreign })
      await vi.waitFor(
        () =>
          expect(
            b.logLines.filter((line) => line.includes('refused the shared config version')).length,
          ).toBeGreaterThan(0),
        { timeout: 5000, interval: 50 },
      )
      // The real admin still gets in; no program, folder or persona of the attacker's was taken.
      expect((await admin(b, 'GET', '/api/config')).status).toBe(200)
      expect(await personaOf(b)).not.toBe('attacker persona')
      const tools = (await (await admin(b, 'GET', '/api/tools')).json()) as { servers: unknown[] }
      expect(tools.servers).toEqual([])
      expect(b.charpipe.config.assets.dirs).not.toContain('/')

      // The rightful change made on A reaches B.
      expect(
        (await admin(a, 'PUT', '/api/config', { character: { persona: 'kind and brief' } })).status,
      ).toBe(200)
      await vi.waitFor(async () => expect(await personaOf(b)).toBe('kind and brief'), {
        timeout: 5000,
        interval: 50,
      })
    })

    it('refuses a signed version that carries what each server keeps for itself (the same gate as an admin change)', async () => {
      prefix = `${keyPrefix}${run++}:`
      const a = await startMember('甲')
      const current = Number((await readStoredVersion()).version)
      // Even sealed with the right secret (a member's file leaked), own fields are refused.
      const sealed = createConfigVersionSeal(sharedSecret).seal(current + 1, 'attacker', hostileConfig)
      await writeAsAttacker({ ...sealed })
      await vi.waitFor(
        () =>
          expect(
            a.logLines.some((line) =>
              line.includes('refused the shared config version stored by another server'),
            ),
          ).toBe(true),
        { timeout: 5000, interval: 50 },
      )
      const refusal = a.logLines.find((line) =>
        line.includes('refused the shared config version stored by another server'),
      )!
      for (const field of ['server.admin_token', 'assets.dirs', 'tools.mcp_servers.owned.command'])
        expect(refusal).toContain(field)
      expect((await admin(a, 'GET', '/api/config')).status).toBe(200)
      expect(await personaOf(a)).toBe('')
    })

    it('a member restarted while the other runs keeps the admin change and says where its file differs', async () => {
      prefix = `${keyPrefix}${run++}:`
      const a = await startMember('甲')
      let b = await startMember('甲')
      // A Chinese persona for the Chinese character 甲: an English one would also turn its emotion
      // labels English (they follow the character's language), and the file would differ there too.
      expect(
        (await admin(a, 'PUT', '/api/config', { character: { persona: '管理员改过的人设' } })).status,
      ).toBe(200)
      await vi.waitFor(async () => expect(await personaOf(b)).toBe('管理员改过的人设'), {
        timeout: 5000,
        interval: 50,
      })
      const index = servers.indexOf(b)
      await b.stop()
      servers.splice(index, 1)
      b = await startMember('甲')
      expect(await personaOf(b)).toBe('管理员改过的人设')
      // B's file does not hold the change: /readyz (still ready) and the log say so.
      const ready = (await (await fetch(`${b.url}/readyz`)).json()) as {
        ok: boolean
        config?: { file_differs: string[] }
      }
      expect(ready.ok).toBe(true)
      expect(ready.config?.file_differs).toEqual(['character.persona'])
      expect(b.logLines.some((line) => line.includes('disagree') && line.includes('character.persona'))).toBe(
        true,
      )
      // A, whose file holds the change, agrees with the cluster.
      expect(((await (await fetch(`${a.url}/readyz`)).json()) as { config?: unknown }).config).toBeUndefined()
      expect(await readFile(a.configPath, 'utf8')).toContain('管理员改过的人设')
    })

    it('a cluster started again from files with a new shared secret runs its files', async () => {
      prefix = `${keyPrefix}${run++}:`
      const a = await startMember('甲')
      expect(
        (await admin(a, 'PUT', '/api/config', { character: { persona: 'the old version' } })).status,
      ).toBe(200)
      await a.stop()
      servers.splice(servers.indexOf(a), 1)
      // Every file edited, with a new secret: the stored version no longer verifies.
      const renewed = 'renewed-shared-secret-0123456789'
      const first = await startMember('丙', renewed)
      const second = await startMember('丁', renewed)
      expect(await personaOf(first)).toBe('')
      expect(first.charpipe.config.character.name).toBe('丙')
      expect(first.logLines.some((line) => line.includes('refused the shared config version in Redis'))).toBe(
        true,
      )
      // The second joins the first's file, and says where its own differs.
      expect(second.charpipe.config.character.name).toBe('丙')
      const ready = (await (await fetch(`${second.url}/readyz`)).json()) as {
        config?: { file_differs: string[] }
      }
      expect(ready.config?.file_differs).toEqual(['character.name'])
    })
  },
)
