/**
 * The official MCP conformance suite's client scenarios for a tools client, against charpipe's MCP
 * client, through the documented runner (`npm run test:mcp-conformance`).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

describe('MCP conformance (client scenarios)', () => {
  it("passes initialize and sse-retry; tools_call fails, if at all, only by the suite's own server", () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts', 'run-mcp-conformance.ts')],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 240_000,
      },
    )
    expect(run.stdout).toMatch(/^ok {4}initialize: \d+ checks passed$/m)
    expect(run.stdout).toMatch(/^ok {4}sse-retry: 3 checks passed$/m)
    expect(run.stdout).toMatch(/^(ok {4}|known )tools_call/m)
    expect(run.status).toBe(0)
  }, 300_000)
})
