/**
 * The tools of the test MCP servers (stdio and Streamable HTTP), written on the official SDK:
 * `echo` answers text, `fail` answers an error, `weather` answers structured content, `slow` waits
 * until it is cancelled (and reports the cancellation through `onCancelled`), `whoami` gives the
 * process id (to kill a stdio server from a test), `grow` adds the tool `sprout`, `shot` answers
 * a caption and a PNG image (`testImage`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'

/** A 1×1 red PNG, base64: what the `shot` tool answers as its image. */
export const testImage =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=='

export function createTestMcpServer(options = {}) {
  const server = new McpServer({ name: options.name ?? 'test', version: '1.0.0' })
  const prefix = options.toolPrefix ?? ''
  server.registerTool(
    `${prefix}echo`,
    { description: 'Repeats the text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  )
  server.registerTool(`${prefix}fail`, { description: 'Always fails' }, async () => ({
    content: [{ type: 'text', text: 'the disk is on fire' }],
    isError: true,
  }))
  server.registerTool(
    `${prefix}weather`,
    { description: 'Weather of a city', inputSchema: { city: z.string() } },
    async ({ city }) => ({
      content: [{ type: 'text', text: JSON.stringify({ city, celsius: 21 }) }],
      structuredContent: { city, celsius: 21 },
    }),
  )
  // A tool without an input schema is called with `extra` alone.
  server.registerTool(`${prefix}slow`, { description: 'Takes a long time' }, async (extra) => {
    options.onSlowStarted?.()
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 60_000)
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        options.onCancelled?.()
        resolve()
      })
    })
    return { content: [{ type: 'text', text: 'finally done' }] }
  })
  server.registerTool(`${prefix}whoami`, { description: 'The server process id' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }))
  server.registerTool(`${prefix}big`, { description: 'A long answer' }, async () => ({
    content: [{ type: 'text', text: 'x'.repeat(5000) }],
  }))
  server.registerTool(`${prefix}shot`, { description: 'A screenshot' }, async () => ({
    content: [
      { type: 'text', text: 'the screen:' },
      { type: 'image', mimeType: 'image/png', data: testImage },
    ],
  }))
  // Adds a tool while connected: the SDK announces it with `notifications/tools/list_changed`.
  server.registerTool(`${prefix}grow`, { description: 'Adds the tool sprout' }, async () => {
    server.registerTool(`${prefix}sprout`, { description: 'Added later' }, async () => ({
      content: [{ type: 'text', text: 'sprouted' }],
    }))
    return { content: [{ type: 'text', text: 'grown' }] }
  })
  return server
}
