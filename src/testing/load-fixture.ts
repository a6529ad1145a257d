/**
 * Loads a recorded upstream response for replay. Two formats (see the fixtures' README):
 * - `*.chunks.txt`: one JSON payload per line. OpenAI-format payloads are framed as
 *   `data: <line>\n\n` plus `data: [DONE]\n\n`; Anthropic payloads (a JSON `type` field) as
 *   `event: <type>\ndata: <line>\n\n` with no `[DONE]`, since the Anthropic SDK dispatches on the
 *   event name.
 * - `*.yaml` cassettes: the raw SSE body exactly as received, with its status and content type.
 * The body is split into its SSE events so the server can stream them one by one.
 */
import { readFile } from 'node:fs/promises'
import { parse as parseYaml } from 'yaml'

export interface LoadedFixture {
  status: number
  contentType: string
  /** The body, one SSE event (or the whole body, when it is no stream) per entry. */
  events: string[]
}

export interface LoadFixtureOptions {
  /** Which interaction of a cassette. @default 0 */
  interaction?: number
}

/** Splits a raw SSE body into its events, each keeping its terminating blank line. */
function splitSseBody(body: string): string[] {
  const events: string[] = []
  const pattern = /\r?\n\r?\n/g
  let start = 0
  for (let match = pattern.exec(body); match; match = pattern.exec(body)) {
    events.push(body.slice(start, match.index + match[0].length))
    start = match.index + match[0].length
  }
  if (start < body.length) events.push(body.slice(start))
  return events
}

function frameChunkLines(text: string): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim().length > 0)
  const anthropic = lines.length > 0 && typeof (JSON.parse(lines[0]!) as { type?: unknown }).type === 'string'
  if (anthropic) {
    return lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
  }
  return [...lines.map((line) => `data: ${line}\n\n`), 'data: [DONE]\n\n']
}

interface CassetteInteraction {
  response?: {
    status?: { code?: number }
    headers?: Record<string, string[] | string>
    body?: { string?: string }
  }
}

function headerValue(
  headers: Record<string, string[] | string> | undefined,
  name: string,
): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value
  }
  return undefined
}

export async function loadFixture(path: string, options: LoadFixtureOptions = {}): Promise<LoadedFixture> {
  const text = await readFile(path, 'utf8')
  if (path.endsWith('.chunks.txt')) {
    return { status: 200, contentType: 'text/event-stream; charset=utf-8', events: frameChunkLines(text) }
  }
  if (path.endsWith('.json')) {
    return { status: 400, contentType: 'application/json', events: [text] }
  }
  if (path.endsWith('.yaml') || path.endsWith('.yml')) {
    const cassette = parseYaml(text) as { interactions?: CassetteInteraction[] }
    const index = options.interaction ?? 0
    const interaction = cassette.interactions?.[index]
    if (!interaction?.response) throw new Error(`fixture ${path} has no interaction ${index}`)
    const body = interaction.response.body?.string ?? ''
    const contentType = headerValue(interaction.response.headers, 'content-type') ?? 'text/event-stream'
    return {
      status: interaction.response.status?.code ?? 200,
      contentType,
      events: contentType.includes('event-stream') ? splitSseBody(body) : [body],
    }
  }
  throw new Error(`unknown fixture format: ${path} (expected .chunks.txt, .yaml or .json)`)
}
