import { describe, expect, it } from 'vitest'
import { parseConfig, parseConfigText } from '../../characters/load-config.js'
import { convertMcpServersJson } from './convert-mcp-servers-json.js'

const filesystem = {
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
}

describe('convertMcpServersJson', () => {
  it('takes {"mcpServers": …}: remote entries for the API, stdio entries as YAML the config accepts', () => {
    const result = convertMcpServersJson(
      JSON.stringify({
        mcpServers: {
          filesystem: { ...filesystem, env: { NOTES_TOKEN: 'a "quoted" value' } },
          search: { type: 'http', url: 'https://search.example/mcp', headers: { Authorization: 'Bearer x' } },
        },
      }),
    )
    expect(result.errors).toEqual([])
    expect(result.remote).toEqual({
      search: { type: 'http', url: 'https://search.example/mcp', headers: { Authorization: 'Bearer x' } },
    })
    expect(Object.keys(result.fileOnly)).toEqual(['filesystem'])
    const { config } = parseConfig(parseConfigText(result.yaml))
    expect(config.tools.mcp_servers.filesystem).toMatchObject({
      ...filesystem,
      env: { NOTES_TOKEN: 'a "quoted" value' },
    })
  })

  it('takes the inner map, leaves out disabled servers and client fields, notes unknown ones', () => {
    const result = convertMcpServersJson(
      JSON.stringify({
        old: { url: 'http://127.0.0.1:9/sse', transportType: 'sse', autoApprove: [], color: 'red' },
        off: { command: 'x', disabled: true },
      }),
    )
    expect(result.errors).toEqual([])
    expect(result.remote).toEqual({ old: { url: 'http://127.0.0.1:9/sse', type: 'sse' } })
    expect(result.fileOnly).toEqual({})
    expect(result.yaml).toBe('')
    expect(result.notes).toEqual([
      { key: 'mcpImport.ignored', parameters: { name: 'old', fields: 'color' } },
      { key: 'mcpImport.disabled', parameters: { name: 'off' } },
    ])
  })

  it('sends a remote entry with ${VAR} to the file, which alone expands it', () => {
    const result = convertMcpServersJson(
      JSON.stringify({
        api: { url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
      }),
    )
    expect(result.remote).toEqual({})
    expect(result.yaml).toContain('Authorization":"Bearer ${API_TOKEN}"')
  })

  it('names what is wrong', () => {
    expect(convertMcpServersJson('{"mcpServers": {').errors[0]!.key).toBe('mcpImport.badJson')
    expect(convertMcpServersJson('[1, 2]').errors).toEqual([{ key: 'mcpImport.notObject' }])
    expect(convertMcpServersJson('{"mcpServers": {}}').errors).toEqual([{ key: 'mcpImport.empty' }])
    expect(convertMcpServersJson('{"a b": {"command": "x"}}').errors).toEqual([
      { key: 'mcpImport.badName', parameters: { name: 'a b' } },
    ])
    expect(convertMcpServersJson('{"s": {"args": ["x"]}}').errors).toEqual([
      { key: 'mcpImport.badEntry', parameters: { name: 's' } },
    ])
    const badField = convertMcpServersJson('{"s": {"command": "x", "args": "-y"}, "r": {"url": "ftp://x"}}')
    expect(badField.errors).toEqual([
      { key: 'mcpImport.badField', parameters: { name: 's', field: 'args', expected: 'a list of strings' } },
      { key: 'mcpImport.badField', parameters: { name: 'r', field: 'url', expected: 'an http(s) URL' } },
    ])
    expect(badField.remote).toEqual({})
  })
})
