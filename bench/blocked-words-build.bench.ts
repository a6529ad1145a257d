/**
 * The largest `blocked_words` list the schema takes (10,000 words of 200 CJK characters, random,
 * so the trie hardly shares a prefix) built into its matcher two ways: at once (what the first
 * chat line after a config load paid before lists were prepared) and in slices of the engine's
 * kind, one `setImmediate` each, as a reload now prepares it. Prints the CPU of the longest piece
 * that held the event loop and the whole build's wall time.
 *
 *   node --import tsx bench/blocked-words-build.bench.ts
 */
import { loadavg } from 'node:os'
import {
  createBlockedWordMatcher,
  prepareBlockedWordMatcher,
} from '../src/audience/create-blocked-word-matcher.js'
import { normalizeChatText } from '../src/audience/normalize-chat-text.js'

const count = Number(process.env.WORDS ?? 10_000)
const length = Number(process.env.LENGTH ?? 200)

function randomList(): string[] {
  return Array.from({ length: count }, () =>
    Array.from({ length }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000))).join(''),
  )
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

normalizeChatText('warm up: loads the look-alike tables')

const atOnce = randomList()
let started = performance.now()
let cpu = process.cpuUsage()
createBlockedWordMatcher(atOnce).find(normalizeChatText('你好'))
const atOnceCpu = cpuMs(cpu)
const atOnceWall = performance.now() - started

const sliced = randomList()
let longest = 0
let slices = 0
started = performance.now()
await prepareBlockedWordMatcher(sliced, {
  runSlice: (work) =>
    new Promise((resolve) =>
      setImmediate(() => {
        cpu = process.cpuUsage()
        const result = work()
        longest = Math.max(longest, cpuMs(cpu))
        slices++
        resolve(result)
      }),
    ),
})
const slicedWall = performance.now() - started

console.log(`blocked words: ${count} × ${length} characters; load ${loadavg()[0]!.toFixed(1)}`)
console.table([
  {
    build: 'at once (first message)',
    pieces: 1,
    'longest piece CPU ms': atOnceCpu.toFixed(1),
    'wall ms': atOnceWall.toFixed(0),
  },
  {
    build: 'in slices (prepared)',
    pieces: slices,
    'longest piece CPU ms': longest.toFixed(1),
    'wall ms': slicedWall.toFixed(0),
  },
])
