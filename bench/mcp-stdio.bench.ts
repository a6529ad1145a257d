/**
 * A stdio MCP server that writes a line that never ends: the worst stall of the event loop
 * (`perf_hooks.monitorEventLoopDelay`, its maximum) while the connection is attempted, until the
 * output passes the SDK's 10 MiB bound and the connection is refused. Two readers, alternated
 * round after round:
 *   - the SDK's own transport, whose `ReadBuffer` joins every chunk to all it holds;
 *   - charpipe's connection (`connectMcpServer`), which splits the output in linear time
 *     (`createLineBuffer`).
 * The server is a child process writing 64 KiB pieces as fast as they are read.
 *
 *   npm run bench -- mcp-stdio
 *   ROUNDS=5 npm run bench -- mcp-stdio
 */
import { loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { McpServerConfig } from '../src/config/schema.js'
import { connectMcpServer } from '../src/tools/mcp/connect-mcp-server.js'
import { loadMcpSdk } from '../src/tools/mcp/load-mcp-sdk.js'

const rounds = Number(process.env.ROUNDS ?? 3)
const endlessLine =
  "const piece = 'x'.repeat(65536); const pump = () => { while (process.stdout.write(piece)); process.stdout.once('drain', pump) }; pump()"
const sdk = await loadMcpSdk()

/** The loop's worst stall (ms) while `attempt` runs, and how it ended. */
async function measure(attempt: () => Promise<unknown>): Promise<{ stallMs: number; ended: string }> {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const ended = await attempt().then(
    () => 'connected',
    (error: Error) => error.message,
  )
  delay.disable()
  return { stallMs: delay.max / 1e6, ended }
}

const readers: Record<string, () => Promise<unknown>> = {
  "the SDK's transport": async () => {
    const transport = new sdk.StdioClientTransport({ command: process.execPath, args: ['-e', endlessLine] })
    const client = new sdk.Client({ name: 'bench', version: '1' })
    try {
      await client.connect(transport, { timeout: 10_000 })
    } finally {
      await client.close().catch(() => {})
    }
  },
  "charpipe's connection": async () => {
    const config = { command: process.execPath, args: ['-e', endlessLine], env: {}, timeout_ms: 10_000 }
    const connection = await connectMcpServer({
      sdk,
      config: config as McpServerConfig,
      onClose() {},
      onToolsChanged() {},
    })
    await connection.close()
  },
}

const stalls: Record<string, number[]> = Object.fromEntries(Object.keys(readers).map((name) => [name, []]))
const endings: Record<string, Set<string>> = Object.fromEntries(
  Object.keys(readers).map((name) => [name, new Set<string>()]),
)
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(readers)
  for (const name of round % 2 ? names.reverse() : names) {
    const { stallMs, ended } = await measure(readers[name] as () => Promise<unknown>)
    stalls[name]?.push(stallMs)
    endings[name]?.add(ended.slice(0, 80))
  }
}
console.log(`A stdio MCP server writing a line that never ends: the loop's worst stall, ${rounds} rounds`)
console.log(
  `load average at the end (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(1))
    .join(', ')}`,
)
console.table(
  Object.fromEntries(
    Object.entries(stalls).map(([name, values]) => [
      name,
      {
        'worst stall per round (ms)': values.map((value) => value.toFixed(1)).join(' / '),
        ended: [...(endings[name] ?? [])].join('; '),
      },
    ]),
  ),
)
