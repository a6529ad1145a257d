/**
 * Peers: CPU per chunk of a whole turn, charpipe against the cheapest ways to read the same model
 * stream. One mock model server (a child process, so its CPU is not counted) replays the same reply
 * of CHUNKS one-character chunks in the OpenAI and the Anthropic wire formats; a second one replays
 * it wrapped in the json reply envelope for charpipe's json rows. Every contender reads it in this
 * process: the bare `openai` SDK loop, the bare `@anthropic-ai/sdk` loop, raw `fetch` +
 * `eventsource-parser`, the AI SDK `streamText`, LangChain `ChatOpenAI.stream`, charpipe's library
 * `generate` (plain and json reply formats, over the OpenAI-compatible and the Anthropic
 * providers), `charpipe serve` over WebSocket (the server process's CPU), and a floor (`node:http`
 * reading the body bytes, no parsing). CPU is
 * `process.cpuUsage()` (user + system) over TURNS turns per round; rounds alternate the contenders
 * so drift and load hit them alike; the median round is reported. `ONLY=<name>[,<name>…]` runs
 * those contenders (for a profiler, one: `ONLY=charpipe-openai-plain ROUNDS=20 node --cpu-prof --import tsx ...`). charpipe is
 * the built package (`dist/`, built first when older than `src/`), as its users run it;
 * `FROM_SOURCE=1` loads the source through the TypeScript loader instead.
 *
 *   node --import tsx bench/peers.bench.ts
 *   CHUNKS=1000 TURNS=5 ROUNDS=15 node --import tsx bench/peers.bench.ts
 *   DELAY_MS=1 CHUNKS=100 node --import tsx bench/peers.bench.ts   # paced: one chunk per read
 */
import { request } from 'node:http'
import { loadavg } from 'node:os'
import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { ChatOpenAI } from '@langchain/openai'
import { streamText } from 'ai'
import { createParser } from 'eventsource-parser'
import OpenAI from 'openai'
import WebSocket from 'ws'
import type { CharpipeConfigInput } from '../src/config/schema.js'
import type { ChatProvider, ProviderEvent } from '../src/providers/types.js'
import { ensureBuilt, importBuiltPackage } from './built-package.js'
import { startPeerMock } from './peers/start-peer-mock.js'
import { type ServeProcesses, startServeProcesses } from './serve/start-serve-processes.js'

// charpipe as its users run it, the built package, like every peer here: source through the
// TypeScript loader wraps each closure it creates to keep its name, which alone cost charpipe's
// rows about a tenth. `FROM_SOURCE=1` loads `src/` instead (for a profile that names source lines).
const fromSource = process.env.FROM_SOURCE === '1'
if (!fromSource) ensureBuilt()
const { createCharpipe, createLogger, createProviderFromConfig, parseConfig } = fromSource
  ? await import('../src/index.js')
  : await importBuiltPackage()

const chunks = Number(process.env.CHUNKS ?? 1000)
const turnsPerRound = Number(process.env.TURNS ?? 4)
const warmupRounds = Number(process.env.WARMUP ?? 5)
const rounds = Number(process.env.ROUNDS ?? 15)
// The mock's pause between chunks: 0 sends them back to back (one network read carries hundreds);
// 1 paces them as a model streams, so each read carries one (use fewer CHUNKS: a turn takes ~CHUNKS ms).
const delayMs = Number(process.env.DELAY_MS ?? 0)
// `ONLY=<name>[,<name>…]`: the contenders to run, by name.
const onlyNames = process.env.ONLY?.split(',').map((name) => name.trim())
const wanted = (name: string) => !onlyNames || onlyNames.includes(name)
const logger = createLogger({ level: 'silent' })
const sessions = 20

interface Contender {
  name: string
  label: string
  /** Chunks one turn streams (the json rows' envelope adds a few). */
  chunks: number
  /** One whole turn; returns the characters of reply text it saw. */
  turn: (index: number) => Promise<number>
  /** The characters a turn must see (0: not checked). */
  expect: number
  /** CPU time (µs) so far of the process whose share is counted, when it is not this one. */
  readCpu?: () => Promise<number>
}

const readOwnCpu = async () => {
  const used = process.cpuUsage()
  return used.user + used.system
}

const sentence = '你好呀，今天过得怎么样？'
const text = Array.from({ length: chunks }, (_, index) => sentence[index % sentence.length]).join('')
const envelope = `{"emotion":"开心","text":"${text}"}`
const messages = [{ role: 'user' as const, content: '你好' }]

/** The same reply as provider events, yielded at once: the engine's share of a turn, no network. */
function createInProcessProvider(): ChatProvider {
  const events: ProviderEvent[] = [
    ...Array.from(text, (character): ProviderEvent => ({ type: 'text-delta', text: character })),
    { type: 'usage', usage: { inputTokens: 10, outputTokens: chunks } },
    { type: 'finish', reason: 'stop' },
  ]
  return {
    name: 'in-process',
    model: 'in-process',
    async *streamChat() {
      yield* events
    },
  }
}

async function createCharpipeTurn(input: {
  llm: CharpipeConfigInput['llm']
  format: 'plain' | 'json'
  provider?: ChatProvider
}): Promise<(index: number) => Promise<number>> {
  const { config } = parseConfig(
    {
      llm: input.llm,
      character: { reply_format: input.format },
      history: { store: 'memory' },
      memory: { enabled: false },
    },
    { logger },
  )
  const charpipe = await createCharpipe(config, {
    logger,
    ...(input.provider ? { provider: input.provider } : {}),
  })
  return async (index) => {
    let seen = 0
    for await (const event of charpipe.generate({ text: '你好', session: `s${index % sessions}` })) {
      if (event.type === 'llm_sentence') seen += event.text.replace(/\s/g, '').length
      else if (event.type === 'llm_error') throw new Error(`${event.code}: ${event.message}`)
    }
    return seen
  }
}

/** Turns over WebSocket connections to a running `serve` (several: a connection may start 120 turns a minute). */
async function createServeTurn(serverUrl: string): Promise<(index: number) => Promise<number>> {
  const sockets = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const socket = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/ws`)
      await new Promise((resolve, reject) => {
        socket.once('open', resolve)
        socket.once('error', reject)
      })
      return socket
    }),
  )
  return (index) =>
    new Promise((resolve, reject) => {
      const socket = sockets[index % sockets.length]!
      let seen = 0
      const onMessage = (data: WebSocket.RawData) => {
        const event = JSON.parse(data.toString()) as { type: string; text?: string; message?: string }
        if (event.type === 'llm_sentence') seen += event.text!.replace(/\s/g, '').length
        else if (event.type === 'llm_error' || event.type === 'error') {
          socket.off('message', onMessage)
          reject(new Error(`serve answered ${event.type}: ${event.message}`))
        } else if (event.type === 'llm_done') {
          socket.off('message', onMessage)
          resolve(seen)
        }
      }
      socket.on('message', onMessage)
      socket.send(JSON.stringify({ type: 'user_input', session: `s${index % sessions}`, text: '你好' }))
    })
}

async function main() {
  const mock = await startPeerMock(text, delayMs)
  const jsonMock = await startPeerMock(envelope, delayMs)
  const openai = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'bench', maxRetries: 0 })
  const anthropic = new Anthropic({ baseURL: mock.url, apiKey: 'bench', maxRetries: 0 })
  const vercel = createOpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'bench' })
  const langchain = new ChatOpenAI({
    model: 'bench',
    apiKey: 'bench',
    maxRetries: 0,
    configuration: { baseURL: `${mock.url}/v1` },
  })
  const chatUrl = `${mock.url}/v1/chat/completions`
  const chatBody = JSON.stringify({ model: 'bench', messages, stream: true })
  const floorUrl = new URL(chatUrl)

  const all: Contender[] = [
    {
      name: 'floor',
      label: 'floor: node:http, body bytes read, no parsing',
      chunks,
      expect: 0,
      turn: () =>
        new Promise<number>((resolve, reject) => {
          const outgoing = request(
            floorUrl,
            { method: 'POST', headers: { 'content-type': 'application/json' } },
            (response) => {
              let bytes = 0
              response.on('data', (data: Buffer) => {
                bytes += data.length
              })
              response.on('end', () => resolve(bytes > 0 ? 0 : -1))
              response.on('error', reject)
            },
          )
          outgoing.on('error', reject)
          outgoing.end(chatBody)
        }),
    },
    {
      name: 'anthropic',
      label: '@anthropic-ai/sdk loop (messages.create stream: true)',
      chunks,
      expect: chunks,
      turn: async () => {
        let seen = ''
        const stream = await anthropic.messages.create({
          model: 'bench',
          max_tokens: 4096,
          messages,
          stream: true,
        })
        for await (const event of stream)
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
            seen += event.delta.text
        return seen.length
      },
    },
    {
      name: 'fetch',
      label: 'fetch + eventsource-parser',
      chunks,
      expect: chunks,
      turn: async () => {
        let seen = ''
        const response = await fetch(chatUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: chatBody,
        })
        const parser = createParser({
          onEvent(event) {
            if (event.data === '[DONE]') return
            const content = JSON.parse(event.data).choices[0]?.delta?.content
            if (content) seen += content
          },
        })
        const decoder = new TextDecoder()
        for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(bytes, { stream: true }))
        return seen.length
      },
    },
    {
      name: 'openai',
      label: 'openai SDK loop (for await, stream: true)',
      chunks,
      expect: chunks,
      turn: async () => {
        let seen = ''
        const stream = await openai.chat.completions.create({ model: 'bench', messages, stream: true })
        for await (const chunk of stream) {
          const content = chunk.choices[0]?.delta?.content
          if (content) seen += content
        }
        return seen.length
      },
    },
    {
      name: 'langchain',
      label: 'LangChain ChatOpenAI.stream',
      chunks,
      expect: chunks,
      turn: async () => {
        let seen = ''
        for await (const chunk of await langchain.stream(messages)) seen += chunk.content as string
        return seen.length
      },
    },
    {
      name: 'ai-sdk',
      label: 'AI SDK streamText (@ai-sdk/openai)',
      chunks,
      expect: chunks,
      turn: async () => {
        let seen = ''
        const result = streamText({ model: vercel.chat('bench'), messages, maxRetries: 0 })
        for await (const delta of result.textStream) seen += delta
        return seen.length
      },
    },
  ]
  const charpipeRows: [string, string, CharpipeConfigInput['llm'], 'plain' | 'json', number][] = [
    [
      'charpipe-openai-plain',
      'charpipe generate, plain, OpenAI-compatible provider',
      { provider: 'custom', base_url: `${mock.url}/v1`, model: 'bench', max_retries: 0 },
      'plain',
      chunks,
    ],
    [
      'charpipe-openai-json',
      'charpipe generate, json, OpenAI-compatible provider',
      { provider: 'custom', base_url: `${jsonMock.url}/v1`, model: 'bench', max_retries: 0 },
      'json',
      envelope.length,
    ],
    [
      'charpipe-anthropic-plain',
      'charpipe generate, plain, Anthropic provider',
      { provider: 'anthropic', base_url: mock.url, api_key: 'bench', model: 'bench', max_retries: 0 },
      'plain',
      chunks,
    ],
  ]
  for (const [name, label, llm, format, streamed] of charpipeRows) {
    if (!wanted(name)) continue
    all.push({
      name,
      label,
      chunks: streamed,
      expect: chunks,
      turn: await createCharpipeTurn({ llm, format }),
    })
  }
  // The layers of charpipe's own row, for the account of where its time goes: the provider alone
  // (request, SSE, chunk parser, retry wrapper) and the engine alone (an in-process provider).
  const { config: providerConfig } = parseConfig(
    { llm: { provider: 'custom', base_url: `${mock.url}/v1`, model: 'bench', max_retries: 0 } },
    { logger },
  )
  const provider = createProviderFromConfig(providerConfig)
  all.push({
    name: 'charpipe-provider',
    label: 'charpipe provider layer alone (streamChat, OpenAI-compatible)',
    chunks,
    expect: chunks,
    turn: async () => {
      let seen = ''
      for await (const event of provider.streamChat({ messages }))
        if (event.type === 'text-delta') seen += event.text
      return seen.length
    },
  })
  if (wanted('charpipe-in-process'))
    all.push({
      name: 'charpipe-in-process',
      label: 'charpipe generate, plain, in-process provider (no network)',
      chunks,
      expect: chunks,
      turn: await createCharpipeTurn({
        llm: undefined,
        format: 'plain',
        provider: createInProcessProvider(),
      }),
    })
  // Through `serve`: a real server (child process, built package, default SQLite stores) and its
  // own mock replaying the same reply, read by WebSocket clients in this process. The server's CPU
  // is counted, not this process's: what the turn costs the machine that runs the character.
  let serve: ServeProcesses | undefined
  if (wanted('charpipe-serve')) {
    serve = await startServeProcesses({ reply: { text, chunkSize: 1, delayMs } })
    all.push({
      name: 'charpipe-serve',
      label: 'charpipe serve over WebSocket, plain, OpenAI-compatible (server process CPU)',
      chunks,
      expect: chunks,
      readCpu: serve.readCpu,
      turn: await createServeTurn(serve.serverUrl),
    })
  }
  const contenders = all.filter((contender) => wanted(contender.name))

  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]))
  let turn = 0
  for (let round = 0; round < warmupRounds + rounds; round++) {
    // Alternate the order too, so no contender always runs right after the same one.
    const order = round % 2 ? [...contenders].reverse() : contenders
    for (const contender of order) {
      const readCpu = contender.readCpu ?? readOwnCpu
      const before = await readCpu()
      for (let index = 0; index < turnsPerRound; index++) {
        const seen = await contender.turn(turn++)
        if (contender.expect && seen !== contender.expect)
          throw new Error(`${contender.name} saw ${seen} characters, expected ${contender.expect}`)
      }
      const used = (await readCpu()) - before
      if (round >= warmupRounds) samples.get(contender.name)!.push(used / (turnsPerRound * contender.chunks))
    }
  }
  mock.stop()
  jsonMock.stop()
  await serve?.stop()

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const reference = samples.get('charpipe-openai-plain')
  const referenceMedian = reference ? median(reference) : undefined
  console.log(
    `\nPeers: ${chunks}-chunk replies${delayMs ? `, ${delayMs} ms between chunks` : ', chunks back to back'}, ${turnsPerRound} turns a round, median of ${rounds} rounds after ${warmupRounds} warm-up, Node ${process.version}`,
  )
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((value) => value.toFixed(2))
      .join(', ')}`,
  )
  console.log('| contender | CPU µs/chunk (median) | min | vs charpipe (plain, OpenAI) |')
  console.log('|---|---:|---:|---:|')
  for (const contender of contenders) {
    const values = samples.get(contender.name)!
    const perChunk = median(values)
    const ratio = referenceMedian ? `${(perChunk / referenceMedian).toFixed(2)}x` : ''
    console.log(
      `| ${contender.label} | ${perChunk.toFixed(2)} | ${Math.min(...values).toFixed(2)} | ${ratio} |`,
    )
  }
  // Paired: each round's charpipe figure over the peer's in the same round, the median of those.
  // The load moves both alike within a round, so this spreads far less than a ratio of medians.
  const peers = ['anthropic', 'openai', 'fetch'].filter((name) => samples.has(name))
  const ours = contenders.filter((contender) => contender.name.startsWith('charpipe-'))
  if (peers.length === 0 || ours.length === 0) return
  console.log(`\ncharpipe / peer, median of the ${rounds} rounds' ratios (each round runs both)`)
  console.log(`| charpipe row | ${peers.join(' | ')} |`)
  console.log(`|---|${peers.map(() => '---:').join('|')}|`)
  for (const contender of ours) {
    const values = samples.get(contender.name)!
    const cells = peers.map((peer) => {
      const theirs = samples.get(peer)!
      return `${median(values.map((value, round) => value / theirs[round]!)).toFixed(2)}x`
    })
    console.log(`| ${contender.name} | ${cells.join(' | ')} |`)
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
