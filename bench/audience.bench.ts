/**
 * The audience selector's cost per message at 10,000 messages a minute: ten simulated minutes of
 * chat (100,000 messages from 5,000 speakers: viewers, members, moderators, gifts, mentions,
 * questions, repeats, 200 blocked words to check) offered to one session's selector, a batch of 8
 * taken every 2 simulated seconds, on a manual clock. Reported: microseconds per offered message
 * (median and worst of 5 runs), the CPU time per message (median; on a loaded machine wall-clock
 * time also counts the waits for a core), and the share of one core the selector takes at that rate.
 * Goal: ≤ 50 µs a message with 200 blocked words (issue #50), far below the 6 ms a message may take.
 * Run: node --import tsx bench/audience.bench.ts (`MESSAGES=<n>` and `RUNS=<n>` for shorter runs,
 * as under an instruction counter: BENCHMARKS.md "Audience selection").
 */
import { createAudienceSelector } from '../src/audience/create-audience-selector.js'
import type { AudienceMessage, AudienceRole } from '../src/audience/types.js'
import { audienceSchema } from '../src/config/schema/audience.js'
import { createManualClock } from '../src/testing/create-manual-clock.js'

const perMinute = 10_000
const minutes = 10
const messageCount = Number(process.env.MESSAGES ?? perMinute * minutes)
const runCount = Number(process.env.RUNS ?? 5)
const roles: AudienceRole[] = [
  'viewer',
  'viewer',
  'viewer',
  'viewer',
  'member',
  'viewer',
  'moderator',
  'viewer',
]
const texts = [
  '主播好厉害',
  '这是什么游戏？',
  '小助手 唱首歌吧',
  '666',
  'hello from the chat',
  '哈哈哈哈哈',
  'where are you from?',
]

function scriptMessages(): AudienceMessage[] {
  return Array.from({ length: messageCount }, (_, index) => ({
    id: `m${index}`,
    speaker: { id: `u${index % 5000}`, name: `viewer ${index % 5000}`, role: roles[index % roles.length]! },
    text: `${texts[index % texts.length]} ${index % 3 === 0 ? '' : index}`,
    ...(index % 50 === 0 ? { gift: { name: 'rocket', value: 1 } } : {}),
  }))
}

interface RunResult {
  /** Wall-clock microseconds per message. */
  wall: number
  /** CPU microseconds per message (all threads): on a loaded machine, wall-clock counts waits for a core too. */
  cpu: number
}

async function runOnce(messages: AudienceMessage[]): Promise<RunResult> {
  const clock = createManualClock()
  const policy = audienceSchema.parse({
    blocked_words: Array.from({ length: 200 }, (_, index) => `blocked${index}`),
  })
  const selector = createAudienceSelector({ clock, readPolicy: () => policy, readNames: () => ['小助手'] })
  const gapMs = 60_000 / perMinute
  let spent = 0
  let spentCpu = 0
  for (const [index, message] of messages.entries()) {
    const cpuStart = process.cpuUsage()
    const start = performance.now()
    selector.offer(message)
    if (index % Math.round(2000 / gapMs) === 0) selector.takeBatch()
    spent += performance.now() - start
    const cpu = process.cpuUsage(cpuStart)
    spentCpu += cpu.user + cpu.system
    // The clock moves outside the measured part, as chat time passes between messages.
    await clock.advance(gapMs)
  }
  return { wall: (spent * 1000) / messages.length, cpu: spentCpu / messages.length }
}

const messages = scriptMessages()
const results: RunResult[] = []
for (let run = 0; run < runCount; run++) results.push(await runOnce(messages))
const sorted = (values: number[]) => values.sort((left, right) => left - right)
const runs = sorted(results.map((result) => result.wall))
const cpuRuns = sorted(results.map((result) => result.cpu))
const middle = Math.floor(runs.length / 2)
const median = runs[middle]!
const share = ((median * perMinute) / 60_000_000) * 100
console.table([
  {
    'messages/min': perMinute,
    'µs/message median': median.toFixed(2),
    [`µs/message worst of ${runs.length}`]: runs.at(-1)!.toFixed(2),
    'CPU µs/message median': cpuRuns[middle]!.toFixed(2),
    'core share at this rate': `${share.toFixed(3)}%`,
  },
])
