/**
 * The cost per chunk of the emotion dialects of `/v1/chat/completions` (`server.clients[].profile.
 * emotion`): the part of a streamed reply the dialect adds, from the engine's events to the SSE
 * `data` text the route writes. The events of a long reply with inline emotion tags are made once by
 * the real reply parser; each dialect then turns them into chunk JSON, beside the route without a
 * dialect writer (as before profiles) in the same run, so a client without a profile (`field`) can
 * be compared with it directly.
 *
 *   node --import tsx bench/emotion-dialects.bench.ts [--kb N]
 */
import { availableParallelism, loadavg } from 'node:os'
import { createReplyParser } from '../src/reply/index.js'
import type { ReplyEvent } from '../src/reply/types.js'
import { createEmotionDialectWriter, type EmotionDialect } from '../src/server/openai/index.js'
import { buildReplyText, createRandom, splitIntoChunks } from './reply/reply-corpus.js'

const kilobytes = (() => {
  const index = process.argv.indexOf('--kb')
  const value = index === -1 ? 64 : Number(process.argv[index + 1])
  if (!Number.isFinite(value) || value < 1) throw new Error('--kb needs a number of kilobytes >= 1')
  return value
})()

/** A reply whose emotion changes every few sentences, as an inline-tag character writes it. */
function buildTaggedReply(bytes: number): string {
  const random = createRandom(7)
  const labels = ['开心', '平静', '难过', '生气', '惊讶']
  return buildReplyText(bytes)
    .split(/(?<=[。！？!?])/)
    .map((sentence) =>
      random() < 0.25 ? `[${labels[Math.floor(random() * labels.length)]}]${sentence}` : sentence,
    )
    .join('')
}

const emotions = ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞']
const parser = createReplyParser({ replyFormat: 'plain', inlineEmotionTags: true, emotions, log: () => {} })
const replyEvents: ReplyEvent[] = []
for (const chunk of splitIntoChunks(buildTaggedReply(kilobytes * 1024)))
  replyEvents.push(...parser.push(chunk))
replyEvents.push(...parser.end())
const textChunks = replyEvents.filter((event) => event.type === 'display-delta').length

const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'mika' }
const frame = (delta: Record<string, unknown>) =>
  JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null, logprobs: null }] })

/** The route before profiles: each text delta and each emotion as a chunk. Returns the bytes written. */
function runWithoutWriter(): number {
  let bytes = 0
  for (const event of replyEvents) {
    if (event.type === 'display-delta') bytes += frame({ content: event.text }).length
    else if (event.type === 'emotion') bytes += frame({ emotion: event.emotion }).length
  }
  return bytes
}

/** The route with a client's dialect writer, as openai-completions-route.ts drives it. */
function runDialect(dialect: EmotionDialect): number {
  const writer = createEmotionDialectWriter({
    dialect,
    defaultEmotion: '平静',
    emotionNames: dialect === 'bracket' ? { 开心: 'joy', 难过: 'sadness', 平静: 'neutral' } : {},
  })
  let bytes = 0
  const send = (content: string) => {
    if (content) bytes += frame({ content }).length
  }
  for (const event of replyEvents) {
    if (event.type === 'display-delta') send(writer.writeText(event.text))
    else if (event.type === 'emotion' && writer.usesField) bytes += frame({ emotion: event.emotion }).length
    else if (event.type === 'emotion' || event.type === 'sentence') send(writer.writeEmotion(event.emotion))
    else if (event.type === 'done') send(writer.end(event.emotion))
  }
  return bytes
}

/** Best time of one run in ms over a budget (the best, as other work on a shared machine only adds time). */
function measure(run: () => number, budgetMs = 600): number {
  run()
  const times: number[] = []
  const started = performance.now()
  while (times.length < 5 || (performance.now() - started < budgetMs && times.length < 500)) {
    const start = performance.now()
    run()
    times.push(performance.now() - start)
  }
  return Math.min(...times)
}

const rows = [
  { name: 'no writer (before profiles)', run: runWithoutWriter },
  ...(['field', 'none', 'act', 'bracket'] as const).map((dialect) => ({
    name: dialect,
    run: () => runDialect(dialect),
  })),
]
const baseline = measure(rows[1]!.run)
console.log(
  `\nEmotion dialects: ${kilobytes} KB reply, ${textChunks} text chunks, ${replyEvents.length} engine events; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
)
console.log('| dialect | ns per text chunk | vs field | bytes written |')
console.log('|---|---|---|---|')
for (const row of rows) {
  const time = row.name === 'field' ? baseline : measure(row.run)
  const perChunk = (time * 1e6) / textChunks
  console.log(`| ${row.name} | ${perChunk.toFixed(0)} | ${(time / baseline).toFixed(2)}× | ${row.run()} |`)
}
