/**
 * The upstream SSE reader's hot path: our strict decoder (`createSseDecoder`, over
 * `eventsource-parser` since it replaced the hand-written one) against the bare parser on the same
 * OpenAI stream (CHUNKS one-character deltas, pushed as the network hands them: one event per push,
 * and the same text in 1 KB slices). The difference is what ours adds (the checks, the event
 * object). Rounds alternate between the two so drift hits them alike; the median round is
 * reported, as ns per event.
 *
 *   npm run bench -- sse-decoder
 */
import { createParser } from 'eventsource-parser'
import { createSseDecoder } from '../src/providers/create-sse-decoder.js'
import { composeOpenAISseChunks } from './openai-sse-chunks.js'

const chunks = 20_000
const rounds = 21
const pieces = composeOpenAISseChunks(
  Array.from({ length: chunks }, (_, index) => String.fromCharCode(0x4e00 + (index % 500))),
)
const whole = pieces.join('')
const slices = Array.from({ length: Math.ceil(whole.length / 1024) }, (_, index) =>
  whole.slice(index * 1024, (index + 1) * 1024),
)

type Contender = { name: string; run: (input: string[]) => number }

const contenders: Contender[] = [
  {
    name: 'createSseDecoder (ours)',
    run(input) {
      let events = 0
      const decoder = createSseDecoder(() => void events++)
      for (const text of input) decoder.push(text)
      decoder.end()
      return events
    },
  },
  {
    name: 'eventsource-parser',
    run(input) {
      let events = 0
      const parser = createParser({ onEvent: () => void events++, maxBufferSize: 1_048_576 })
      for (const text of input) parser.feed(text)
      return events
    },
  },
]

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

for (const [label, input] of [
  ['one event per push', pieces],
  ['1 KB slices', slices],
] as const) {
  const times = new Map(contenders.map((contender) => [contender.name, [] as number[]]))
  for (let round = 0; round < rounds; round++) {
    for (const contender of round % 2 ? [...contenders].reverse() : contenders) {
      const start = process.hrtime.bigint()
      const events = contender.run(input)
      const elapsed = Number(process.hrtime.bigint() - start)
      if (events < chunks) throw new Error(`${contender.name} saw ${events} events`)
      if (round > 2) times.get(contender.name)!.push(elapsed / events)
    }
  }
  console.log(`\n${label} (${chunks} events, median of ${rounds - 3} rounds)`)
  for (const [name, values] of times)
    console.log(`  ${name.padEnd(26)} ${median(values).toFixed(0).padStart(6)} ns/event`)
}
