/**
 * How a config change travels in a cluster, through the server's own config manager: a change made
 * through the admin path or by hand on one running server reaches the others; the others' files
 * stay as they are (their bootstrap); a server that starts later adopts the cluster's config.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/characters/load-config.js'
import { type ClusterRedis, connectClusterRedis } from '../../src/cluster/connect-cluster-redis.js'
import { type ConfigSync, startConfigSync } from '../../src/cluster/start-config-sync.js'
import type { CharpipeConfig } from '../../src/config/schema.js'
import { type ConfigManager, createConfigManager } from '../../src/server/create-config-manager.js'
import { createLogger } from '../../src/shared/logger.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const logger = createLogger({ level: 'silent' })
const folder = await mkdtemp(join(tmpdir(), 'charpipe-cluster-config-'))
const opened: { redis: ClusterRedis; sync: ConfigSync }[] = []

/** One server's config side: its file, its manager, its share of the cluster's config. */
async function startServer(name: string, temperature: number) {
  const configPath = join(folder, `${name}.yaml`)
  await writeFile(configPath, `llm:\n  temperature: ${temperature}\n`)
  const config = (await loadConfig(configPath, { logger })).config
  const applied: CharpipeConfig[] = []
  let sync: ConfigSync | undefined
  const manager: ConfigManager = createConfigManager({
    configPath,
    config,
    apply: async (next) => {
      applied.push(next)
    },
    logger,
    onChange: async (next) => {
      await sync?.publish(next)
    },
  })
  const redis = await connectClusterRedis({ url: testRedisUrl, keyPrefix, timeoutMs: 1000, logger })
  sync = await startConfigSync({
    redis,
    initial: config,
    sharedSecret: 'test-shared-secret-0123456789',
    adopt: (next) => manager.adopt(next),
    logger,
  })
  opened.push({ redis, sync })
  return { configPath, manager, applied }
}

afterAll(async () => {
  for (const { redis, sync } of opened) {
    sync.close()
    await redis.close()
  }
  await deleteKeys()
  await rm(folder, { recursive: true, force: true })
})

describe.skipIf(skipReason !== undefined)('config changes across servers', { timeout: 20_000 }, () => {
  it('publishes an admin change and a hand edit of a running server; other files stay; a late server adopts', async () => {
    const a = await startServer('a', 0.1)
    const b = await startServer('b', 0.2)
    // B joined an existing cluster: it runs the cluster's config, not its file's.
    expect(b.manager.current().llm.temperature).toBe(0.1)

    await a.manager.update({ llm: { temperature: 0.3 } })
    await vi.waitFor(() => expect(b.manager.current().llm.temperature).toBe(0.3), {
      timeout: 3000,
      interval: 50,
    })
    expect(await readFile(b.configPath, 'utf8')).toContain('temperature: 0.2')

    // A hand edit of B's file while B runs (what its watch calls): applied on B and on A.
    await writeFile(b.configPath, 'llm:\n  temperature: 0.4\n')
    expect(await b.manager.reloadFromFile()).toBe(true)
    await vi.waitFor(() => expect(a.manager.current().llm.temperature).toBe(0.4), {
      timeout: 3000,
      interval: 50,
    })

    const late = await startServer('c', 0.9)
    expect(late.manager.current().llm.temperature).toBe(0.4)
  })
})
