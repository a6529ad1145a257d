import { spawnSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliArguments } from '../support/cli-command.js'

const root = join(import.meta.dirname, '..', '..')
const stdioScript = join(root, 'test/tools/mcp-stdio-server.mjs')
const misbehavingScript = join(root, 'test/tools/mcp-misbehaving-server.mjs')

describe('charpipe doctor with MCP servers', () => {
  it('connects to each server and lists its tools; one that cannot start fails the check', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'charpipe-cli-')), 'config.yaml')
    await writeFile(
      path,
      [
        'llm:',
        '  provider: mock',
        'tools:',
        '  mcp_servers:',
        '    local:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(stdioScript)}]`,
        '    broken:',
        `      command: ${JSON.stringify(process.execPath)}`,
        "      args: ['-e', 'process.exit(3)']",
        '      timeout_ms: 5000',
        '    fs:',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(misbehavingScript)}]`,
        '      env:',
        '        MCP_MISBEHAVE: exit',
        '        SERVICE_TOKEN: doctor-secret-789',
      ].join('\n'),
    )
    const result = spawnSync(process.execPath, cliArguments(['doctor', '--config', path]), {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CHARPIPE_LOG_LEVEL: 'warn' },
      timeout: 60_000,
    })
    expect(result.stdout).toMatch(
      /ok {3}MCP server local: 8 tools: echo, fail, weather, slow, whoami, big, shot, grow/,
    )
    expect(result.stdout).toMatch(/FAIL MCP server broken: cannot connect/)
    // A server that fails says why: its last stderr lines, without its secrets.
    expect(result.stdout).toMatch(
      /FAIL MCP server fs: cannot connect \(.*Connection closed; the server's last output: .*None of the specified directories are accessible\)/,
    )
    expect(result.stdout + result.stderr).not.toContain('doctor-secret-789')
    expect(result.status).toBe(1)
  })
})
