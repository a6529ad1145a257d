import { describe, expect, it } from 'vitest'
import { findFileOnlyChanges } from './find-file-only-changes.js'

const stdio = { command: 'node', args: ['server.js'], env: { TOKEN: 'a' } }

describe('findFileOnlyChanges: stdio MCP servers', () => {
  it('refuses adding a stdio server, naming the fields', () => {
    const issues = findFileOnlyChanges({ running: {}, candidate: { tools: { mcp_servers: { fs: stdio } } } })
    expect(issues.map((issue) => issue.path)).toEqual([
      'tools.mcp_servers.fs.command',
      'tools.mcp_servers.fs.args',
      'tools.mcp_servers.fs.env',
    ])
  })

  it('refuses changing what a stdio server runs', () => {
    const running = { tools: { mcp_servers: { fs: stdio } } }
    const candidate = { tools: { mcp_servers: { fs: { ...stdio, args: ['other.js'], cwd: '/tmp' } } } }
    expect(findFileOnlyChanges({ running, candidate }).map((issue) => issue.path)).toEqual([
      'tools.mcp_servers.fs.args',
      'tools.mcp_servers.fs.cwd',
    ])
  })

  it('refuses turning a stdio server into a remote one', () => {
    const running = { tools: { mcp_servers: { fs: stdio } } }
    const candidate = { tools: { mcp_servers: { fs: { url: 'http://example.test/mcp' } } } }
    expect(findFileOnlyChanges({ running, candidate }).map((issue) => issue.path)).toContain(
      'tools.mcp_servers.fs.command',
    )
  })

  it('allows removing one, changing its other settings and adding a remote one', () => {
    const running = { tools: { mcp_servers: { fs: stdio, gone: stdio } } }
    const candidate = {
      tools: {
        mcp_servers: {
          fs: { ...stdio, prefix: 'fs_', timeout_ms: 5000 },
          web: { url: 'http://example.test/mcp' },
        },
      },
    }
    expect(findFileOnlyChanges({ running, candidate })).toEqual([])
  })
})
