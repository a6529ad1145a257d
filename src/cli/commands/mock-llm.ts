/**
 * `charpipe mock-llm [--port N] [--host H] [--script FILE]`: a local OpenAI- and Anthropic-compatible
 * mock model server (see `startMockModelServer` for scripting replies and faults). Runs until
 * SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util'
import { startMockModelServer } from '../../testing/start-mock-model-server.js'

export const summary = 'Run a local OpenAI/Anthropic-compatible mock model server (scripted replies, faults)'
export const usage =
  'charpipe mock-llm [--port N] [--host H] [--script FILE]\n\n' +
  '  --port N       port to listen on (default 11435; 0 picks a free one)\n' +
  '  --host H       interface (default 127.0.0.1)\n' +
  '  --script FILE  YAML/JSON script: {replies: [...], default: {...}} or a list of replies\n\n' +
  'Routes: POST /v1/chat/completions, POST /v1/messages, GET /v1/models.\n' +
  'Per request: an x-mock-reply header (JSON) or [[mock-reply:{...}]] in the last user message;\n' +
  'only the script may name a fixture file to replay.'

function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got "${value}"`)
  }
  return port
}

export async function run(args: string[]): Promise<number> {
  let port: number
  let values: { port?: string; host?: string; script?: string }
  try {
    values = parseArgs({
      args,
      options: {
        port: { type: 'string', default: '11435' },
        host: { type: 'string' },
        script: { type: 'string' },
      },
    }).values
    port = parsePort(values.port ?? '11435')
  } catch (error) {
    console.error(`charpipe mock-llm: ${(error as Error).message}\nusage: ${usage}`)
    return 2
  }
  let server: Awaited<ReturnType<typeof startMockModelServer>>
  try {
    server = await startMockModelServer({ port, host: values.host, script: values.script })
  } catch (error) {
    console.error(`charpipe mock-llm: ${(error as Error).message}`)
    return 1
  }
  console.log(`mock model server listening on ${server.url}`)
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await server.close()
  return 0
}
