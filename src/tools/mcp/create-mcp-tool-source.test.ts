import { describe, expect, it } from 'vitest'
import { createLogger } from '../../shared/logger.js'
import { createMcpToolSource } from './create-mcp-tool-source.js'

const unreachable = { url: 'http://127.0.0.1:9/mcp', headers: {}, timeout_ms: 1_000 }

describe('reconfigure', () => {
  it('removes a server named after an Object.prototype member when the config no longer has it', async () => {
    // The server names are the config's `tools.mcp_servers` keys: `toString` is a valid one.
    const source = createMcpToolSource({
      servers: { toString: unreachable, valueOf: unreachable } as never,
      logger: createLogger({ level: 'silent' }),
      restartDelayMs: 60_000,
    })
    try {
      expect(source.servers().map((server) => server.name)).toEqual(['toString', 'valueOf'])
      source.reconfigure({})
      await expect.poll(() => source.servers(), { timeout: 5_000 }).toEqual([])
      // Still gone once every removal has settled: nothing came back under the prototype's member.
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(source.servers()).toEqual([])
    } finally {
      await source.close()
    }
  })
})
