/**
 * A small server speaking the PROTOCOL.md API, for developing and testing the page when the real
 * `charpipe serve` cannot start: config GET/PUT validated with the real schema and written to the
 * YAML file, processors, preview, a scripted streaming reply over the WebSocket with interrupt,
 * session history, memory and knowledge endpoints, and the built page from `dist/web`.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { type WebSocket, WebSocketServer } from 'ws'
import { parse, stringify } from 'yaml'
import { parseConfig } from '../../src/config/load-config.js'
import { maskSecrets, restoreMaskedSecrets } from '../../src/config/mask-secrets.js'
import { builtinProviders } from '../../src/config/provider-registry.js'
import type { CharpipeConfig } from '../../src/config/schema.js'
import { InvalidConfigError } from '../../src/shared/errors.js'

export interface FakeServerOptions {
  configPath: string
  staticDir: string
}

export interface FakeServer {
  url: string
  close(): Promise<void>
}

const processorDefinitions = [
  { id: 'session-loader', name: '历史加载', priority: 100, configFields: [] },
  {
    id: 'regex-processor',
    name: '正则替换',
    priority: 200,
    configFields: [{ key: 'rules', label: '规则', type: 'json', default: [] }],
  },
  { id: 'injection-assembler', name: '提示词组装', priority: 300, configFields: [] },
  { id: 'user-emotion', name: '用户语气', priority: 350, configFields: [] },
]

function mergeDeep(base: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const result: Record<string, unknown> = { ...((base as Record<string, unknown>) ?? {}) }
  for (const [key, value] of Object.entries(patch)) result[key] = mergeDeep(result[key], value)
  return result
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text ? JSON.parse(text) : {}
}

export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  let raw = (parse(await readFile(options.configPath, 'utf8')) ?? {}) as Record<string, unknown>
  let config: CharpipeConfig = parseConfig(raw).config
  const history = new Map<
    string,
    { role: string; content: string; emotion?: string; interrupted?: boolean; createdAt: number }[]
  >()
  const memories = new Map<
    string,
    { id: string; scope: string; text: string; speaker?: string; time: number }
  >()
  const memoryHistory: {
    memoryId: string
    event: string
    oldText?: string
    newText?: string
    time: number
  }[] = []
  const documents = new Map<string, { id: string; name: string; chunks: number; createdAt: number }>()
  let nextId = 1

  const listProcessors = () =>
    processorDefinitions.map((definition) => {
      const settings = (config.pipeline.processors[definition.id] ?? {}) as Record<string, unknown>
      return {
        ...definition,
        description: `${definition.name} (${definition.id})`,
        isCore: false,
        priority: typeof settings.priority === 'number' ? settings.priority : definition.priority,
        enabled: settings.enabled !== false,
        settings,
      }
    })
  const isEnabled = (id: string) =>
    listProcessors().find((processor) => processor.id === id)?.enabled === true

  const buildPreview = (input: { text: string; emotion?: string }) => {
    const messages: { role: string; content: string; source: string; tokens: number }[] = []
    const add = (role: string, content: string, source: string) =>
      messages.push({ role, content, source, tokens: content.length })
    if (isEnabled('injection-assembler')) {
      add('system', `你是${config.character.name}。${config.character.persona}`, 'persona')
      for (const message of config.character.injected_history) add(message.role, message.content, 'injected')
    }
    const mapped = input.emotion ? config.character.user_emotion_map[input.emotion] : undefined
    const suffix = mapped && isEnabled('user-emotion') ? `[用户语气：${mapped}]` : ''
    add('user', `${input.text}${suffix}`, 'input')
    return { messages, total_tokens: messages.reduce((sum, message) => sum + message.tokens, 0), logs: [] }
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    const route = `${request.method} ${url.pathname}`
    if (route === 'GET /api/config') return sendJson(response, 200, maskSecrets(config))
    if (route === 'PUT /api/config') {
      const merged = restoreMaskedSecrets(
        mergeDeep(raw, await readBody(request)) as Record<string, unknown>,
        raw,
      )
      try {
        config = parseConfig(merged).config
      } catch (error) {
        if (error instanceof InvalidConfigError)
          return sendJson(response, 400, {
            error: { code: 'invalid_config', message: error.message, issues: error.issues },
          })
        throw error
      }
      raw = merged
      await writeFile(options.configPath, stringify(raw))
      return sendJson(response, 200, maskSecrets(config))
    }
    if (route === 'GET /api/processors') return sendJson(response, 200, listProcessors())
    if (route === 'GET /api/providers') return sendJson(response, 200, builtinProviders)
    if (route === 'POST /api/doctor')
      return sendJson(response, 200, [{ name: 'provider', ok: true, message: config.llm.provider }])
    if (route === 'POST /api/preview')
      return sendJson(response, 200, buildPreview((await readBody(request)) as { text: string }))
    const sessionMatch = url.pathname.match(/^\/api\/sessions\/([^/]+)\/messages$/)
    if (sessionMatch)
      return sendJson(response, 200, {
        messages: history.get(decodeURIComponent(sessionMatch[1] ?? '')) ?? [],
      })
    if (route === 'POST /api/memory') {
      const body = (await readBody(request)) as { scope?: string; text: string; speaker?: string }
      const id = `m${nextId++}`
      memories.set(id, {
        id,
        scope: body.scope ?? 'default',
        text: body.text,
        speaker: body.speaker,
        time: Date.now(),
      })
      memoryHistory.push({ memoryId: id, event: 'add', newText: body.text, time: Date.now() })
      return sendJson(response, 200, { id })
    }
    if (route === 'GET /api/memory/search' || route === 'GET /api/memory') {
      const query = url.searchParams.get('q') ?? ''
      const scope = url.searchParams.get('scope') ?? 'default'
      const results = [...memories.values()]
        .filter((memory) => memory.scope === scope && memory.text.includes(query))
        .map((memory) => ({ ...memory, score: query ? 1 : undefined }))
      return sendJson(response, 200, { results })
    }
    const memoryMatch = url.pathname.match(/^\/api\/memory\/([^/]+)(\/history)?$/)
    if (memoryMatch) {
      const id = decodeURIComponent(memoryMatch[1] ?? '')
      const memory = memories.get(id)
      if (memoryMatch[2])
        return sendJson(response, 200, { history: memoryHistory.filter((entry) => entry.memoryId === id) })
      if (!memory)
        return sendJson(response, 404, { error: { code: 'not_found', message: `no memory ${id}` } })
      if (request.method === 'DELETE') {
        memories.delete(id)
        memoryHistory.push({ memoryId: id, event: 'delete', oldText: memory.text, time: Date.now() })
      } else if (request.method === 'PATCH') {
        const body = (await readBody(request)) as { text: string }
        memoryHistory.push({
          memoryId: id,
          event: 'update',
          oldText: memory.text,
          newText: body.text,
          time: Date.now(),
        })
        memory.text = body.text
      }
      return sendJson(response, 200, { ok: true })
    }
    if (route === 'GET /api/kb') return sendJson(response, 200, { documents: [...documents.values()] })
    if (route === 'POST /api/kb') {
      const body = (await readBody(request)) as { name: string; text: string }
      const id = `kb${nextId++}`
      const chunks = Math.max(1, body.text.split(/\n\s*\n/).length)
      documents.set(id, { id, name: body.name, chunks, createdAt: Date.now() })
      return sendJson(response, 200, { id, chunks })
    }
    const kbMatch = url.pathname.match(/^\/api\/kb\/([^/]+)$/)
    if (kbMatch && request.method === 'DELETE') {
      documents.delete(decodeURIComponent(kbMatch[1] ?? ''))
      return sendJson(response, 200, { ok: true })
    }
    if (request.method === 'GET' && !url.pathname.startsWith('/api/')) {
      const name = url.pathname === '/' ? 'index.html' : path.basename(url.pathname)
      try {
        const content = await readFile(path.join(options.staticDir, name))
        const type = name.endsWith('.js')
          ? 'text/javascript'
          : name.endsWith('.css')
            ? 'text/css'
            : name.endsWith('.json')
              ? 'application/json'
              : 'text/html'
        response.writeHead(200, { 'content-type': `${type}; charset=utf-8` })
        return response.end(content)
      } catch {
        // Falls through to the 404.
      }
    }
    sendJson(response, 404, { error: { code: 'not_found', message: `${route} not found` } })
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) =>
      sendJson(response, 500, { error: { code: 'internal', message: error.message } }),
    )
  })
  const sockets = new WebSocketServer({ server, path: '/ws' })
  sockets.on('connection', (socket) => attachTurnRunner(socket, { history, getConfig: () => config }))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate()
        sockets.close()
        server.close(() => resolve())
      }),
  }
}

interface TurnRunnerOptions {
  history: Map<
    string,
    { role: string; content: string; emotion?: string; interrupted?: boolean; createdAt: number }[]
  >
  getConfig(): CharpipeConfig
}

/** Streams a scripted reply chunk by chunk; `interrupt` (or a new input) ends it as interrupted. */
function attachTurnRunner(socket: WebSocket, options: TurnRunnerOptions): void {
  const running = new Map<string, () => void>()
  let turnCounter = 0
  socket.on('message', async (data) => {
    let frame: { type?: string; session?: string; text?: string }
    try {
      frame = JSON.parse(String(data))
    } catch {
      socket.send(JSON.stringify({ type: 'error', code: 'bad_request', message: 'frame is not JSON' }))
      return
    }
    const session = frame.session ?? 'default'
    if (frame.type === 'interrupt') {
      running.get(session)?.()
      return
    }
    if (frame.type !== 'user_input' || !frame.text) {
      socket.send(JSON.stringify({ type: 'error', code: 'bad_request', message: 'text: required' }))
      return
    }
    running.get(session)?.()
    const turn = `t${++turnCounter}`
    let stopped = false
    running.set(session, () => {
      stopped = true
    })
    const send = (event: Record<string, unknown>) => socket.send(JSON.stringify({ ...event, session, turn }))
    const long = frame.text.includes('长')
    const sentences = long
      ? Array.from({ length: 40 }, (_, index) => `这是很长的回复的第${index + 1}句。`)
      : ['你好呀！', `我是${options.getConfig().character.name}，今天过得怎么样？`]
    send({ type: 'llm_emotion', emotion: '开心' })
    let text = ''
    let index = 0
    for (const sentence of sentences) {
      for (let at = 0; at < sentence.length && !stopped; at += 2) {
        send({ type: 'llm_chunk', text: sentence.slice(at, at + 2) })
        text += sentence.slice(at, at + 2)
        await new Promise((resolve) => setTimeout(resolve, long ? 40 : 15))
      }
      if (stopped) break
      send({ type: 'llm_sentence', index: index++, text: sentence, emotion: '开心' })
    }
    running.delete(session)
    const list = options.history.get(session) ?? []
    list.push({ role: 'user', content: frame.text, createdAt: Date.now() })
    list.push({
      role: 'assistant',
      content: text,
      emotion: '开心',
      interrupted: stopped,
      createdAt: Date.now(),
    })
    options.history.set(session, list)
    send({ type: 'llm_done', text, emotion: '开心', interrupted: stopped })
  })
}
