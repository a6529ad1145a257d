/**
 * Per-chunk CPU cost of reading a streamed reply: our provider layer (createProviderFromConfig: the
 * OpenAI SDK request, our SSE reader and chunk parser, the retry/fallback wrapper) against the bare
 * `openai` SDK loop and the Vercel AI SDK `streamText`, all on the same mock server (a child
 * process, so its CPU is not counted), with replies of CHUNKS one-character chunks and no delay.
 * Rounds alternate between the three so drift hits them alike; the median round is reported.
 *
 *   node --import tsx bench/providers.bench.ts
 */
import { createOpenAI } from '@ai-sdk/openai'
import { streamText } from 'ai'
import OpenAI from 'openai'
import { parseConfig } from '../src/characters/load-config.js'
import { createProviderFromConfig } from '../src/providers/index.js'
import { startMockServerProcess } from './providers/start-mock-server-process.js'

const chunks = 2000
const warmupRounds = 5
const rounds = 15

type Contender = { name: string; read: () => Promise<number> }

async function main() {
  const server = await startMockServerProcess(chunks)
  const baseURL = `${server.url}/v1`
  const messages = [{ role: 'user' as const, content: '你好' }]
  const sdk = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 })
  const { config } = parseConfig({ llm: { provider: 'custom', base_url: baseURL, model: 'bench' } })
  const ours = createProviderFromConfig(config)
  const vercel = createOpenAI({ baseURL, apiKey: 'bench' })

  const contenders: Contender[] = [
    {
      name: 'openai SDK loop (bare)',
      read: async () => {
        let text = ''
        const stream = await sdk.chat.completions.create({
          model: 'bench',
          messages,
          stream: true,
          stream_options: { include_usage: true },
        })
        for await (const chunk of stream) {
          const content = chunk.choices[0]?.delta?.content
          if (content) text += content
        }
        return text.length
      },
    },
    {
      name: 'charpipe provider layer',
      read: async () => {
        let text = ''
        for await (const event of ours.streamChat({ messages }))
          if (event.type === 'text-delta') text += event.text
        return text.length
      },
    },
    {
      name: 'Vercel AI SDK streamText',
      read: async () => {
        let text = ''
        const result = streamText({ model: vercel.chat('bench'), messages, maxRetries: 0 })
        for await (const delta of result.textStream) text += delta
        return text.length
      },
    },
  ]

  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]))
  for (let round = 0; round < warmupRounds + rounds; round++) {
    for (const contender of contenders) {
      const before = process.cpuUsage()
      const length = await contender.read()
      const used = process.cpuUsage(before)
      if (length !== chunks)
        throw new Error(`${contender.name} read ${length} characters, expected ${chunks}`)
      if (round >= warmupRounds) samples.get(contender.name)!.push((used.user + used.system) / chunks)
    }
  }
  server.stop()

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const baseline = median(samples.get(contenders[0]!.name)!)
  const rows = contenders.map((contender) => {
    const perChunk = median(samples.get(contender.name)!)
    return {
      contender: contender.name,
      'CPU µs/chunk (median)': perChunk.toFixed(2),
      'vs bare SDK': `${(perChunk / baseline).toFixed(2)}x`,
    }
  })
  console.log(
    `${chunks}-chunk replies, ${rounds} rounds after ${warmupRounds} warm-up, Node ${process.version}`,
  )
  console.table(rows)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
