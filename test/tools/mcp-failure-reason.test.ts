/**
 * A stdio MCP server that cannot start says why: the last lines of its stderr reach the server's
 * status (`inspect.tools()`, hence `/api/tools`), the log and `createMcpTools`' error, scrubbed of its
 * secrets. The server is the official SDK's, started in `exit` mode (`mcp-misbehaving-server.mjs`),
 * as the filesystem server does when none of its folders exist.
 */
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createMcpTools } from '../../src/tools/index.js'

const misbehaving = fileURLToPath(new URL('./mcp-misbehaving-server.mjs', import.meta.url))
const secret = 'fs-token-7f3a9c'
const failing = {
  command: process.execPath,
  args: [misbehaving],
  env: { MCP_MISBEHAVE: 'exit', SERVICE_TOKEN: secret },
  timeout_ms: 10_000,
}

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

describe('an MCP server that fails says why', () => {
  it("its status and the log carry its last stderr lines, without the server's secrets", async () => {
    const logLines: string[] = []
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => logLines.push(line) },
    })
    charpipe = await createCharpipe(makeConfig({ tools: { mcp_servers: { fs: failing } } }), { logger })
    const error = await vi.waitFor(
      () => {
        const status = charpipe!.inspect.tools().servers[0]
        if (status?.state !== 'failed') throw new Error(`not failed yet: ${JSON.stringify(status)}`)
        return status.error ?? ''
      },
      { timeout: 20_000, interval: 20 },
    )
    expect(error).toContain('Connection closed')
    expect(error).toContain("the server's last output:")
    expect(error).toContain('Error: None of the specified directories are accessible')
    expect(error).toContain('starting with token ***')
    expect(error).not.toContain(secret)
    const warning = logLines.find((line) => line.includes('MCP server could not be connected'))
    expect(warning).toContain('None of the specified directories are accessible')
    expect(logLines.join('\n')).not.toContain(secret)
  })

  it('createMcpTools rejects with the reason', async () => {
    const rejected = createMcpTools('fs', failing)
    await expect(rejected).rejects.toThrow(
      /MCP server fs: .*None of the specified directories are accessible/,
    )
    await expect(rejected).rejects.not.toThrow(secret)
  })
})
