/**
 * A Bilibili room's cost per message at 10,000 messages a minute: one simulated minute (10,000
 * commands from 5,000 viewers; BENCH_MINUTES=10 for ten: danmaku with medals and emoticons, gold gifts every 20th, a super
 * chat every 100th, repeats, 200 blocked words to check) arriving as the danmaku server sends them
 * (brotli frames of 10 commands), each frame decoded, each command converted to an audience message
 * and offered to one session's selector, a batch of 8 taken every 2 simulated seconds, on a manual
 * clock. Reported: microseconds per message (median and worst of 5 runs) for the frame and command
 * reading, for the selector, and for both, with the share of one core they take at that rate.
 * Goal: far below the 6 ms a message may take at 10,000 a minute.
 * Run: node --import tsx bench/bilibili.bench.ts
 */
import { createAudienceSelector } from '../src/audience/create-audience-selector.js'
import { audienceSchema } from '../src/config/schema/audience.js'
import { convertBilibiliCommand } from '../src/connectors/bilibili/convert-bilibili-command.js'
import {
  DanmakuOperation,
  DanmakuProtocol,
  decodeDanmakuFrame,
  encodeCompressedPackets,
} from '../src/connectors/bilibili/danmaku-packet.js'
import { createManualClock } from '../src/testing/create-manual-clock.js'
import {
  danmakuCommand,
  giftCommand,
  superChatCommand,
} from '../test/connectors/__fixtures__/bilibili-commands.js'

const perMinute = 10_000
const minutes = Number(process.env.BENCH_MINUTES ?? 1)
const commandsPerFrame = 10
const texts = [
  '主播好厉害',
  '这是什么游戏？',
  '小雪 唱首歌吧',
  '666',
  '哈哈哈[dog]',
  '晚上好',
  '下一把什么时候',
]

function scriptCommands(): unknown[] {
  return Array.from({ length: perMinute * minutes }, (_, index) => {
    const uid = 10_000 + (index % 5000)
    if (index % 100 === 0) return superChatCommand({ id: index, uid, text: `醒目留言 ${index}`, price: 30 })
    if (index % 20 === 0) return giftCommand({ uid, tid: `t${index}`, price: 1000 })
    return danmakuCommand({
      uid,
      name: `观众${uid}`,
      idStr: String(index),
      text: `${texts[index % texts.length]} ${index % 3 === 0 ? '' : index}`,
      guardLevel: index % 40 === 0 ? 3 : 0,
      medal: [index % 30, '雪糕', '小雪', 21452505],
      emots: { '[dog]': { emoticon_id: 208, emoji: '[dog]', descript: '[dog]' } },
    })
  })
}

function packFrames(commands: unknown[]): Buffer[] {
  const frames: Buffer[] = []
  for (let start = 0; start < commands.length; start += commandsPerFrame)
    frames.push(
      encodeCompressedPackets(
        commands.slice(start, start + commandsPerFrame).map((command) => ({
          protocol: DanmakuProtocol.json,
          operation: DanmakuOperation.command,
          body: Buffer.from(JSON.stringify(command)),
        })),
        3,
      ),
    )
  return frames
}

async function runOnce(frames: Buffer[]): Promise<{ reading: number; selecting: number }> {
  const clock = createManualClock()
  const policy = audienceSchema.parse({
    blocked_words: Array.from({ length: 200 }, (_, index) => `blocked${index}`),
    weights: { gift: 300 },
  })
  const selector = createAudienceSelector({ clock, readPolicy: () => policy, readNames: () => ['小雪'] })
  const frameGapMs = (60_000 / perMinute) * commandsPerFrame
  let reading = 0
  let selecting = 0
  let messages = 0
  for (const [index, frame] of frames.entries()) {
    const readStart = performance.now()
    const converted = []
    for (const packet of decodeDanmakuFrame(frame)) {
      const result = convertBilibiliCommand({
        command: JSON.parse(packet.body.toString('utf8')),
        roomId: 21452505,
        ownerUid: 1,
        botUid: 0,
        characterName: '小雪',
      })
      if (result?.kind === 'message') converted.push(result.message)
    }
    const selectStart = performance.now()
    for (const message of converted) selector.offer(message)
    if (index % Math.round(2000 / frameGapMs) === 0) selector.takeBatch()
    const end = performance.now()
    reading += selectStart - readStart
    selecting += end - selectStart
    messages += converted.length
    // The clock moves outside the measured part, as chat time passes between frames.
    await clock.advance(frameGapMs)
  }
  return { reading: (reading * 1000) / messages, selecting: (selecting * 1000) / messages }
}

const frames = packFrames(scriptCommands())
const runs: { reading: number; selecting: number }[] = []
for (let run = 0; run < 5; run++) runs.push(await runOnce(frames))
const summarize = (pick: (run: { reading: number; selecting: number }) => number) => {
  const values = runs.map(pick).sort((left, right) => left - right)
  const median = values[2] as number
  return {
    'µs/message median': median.toFixed(2),
    'µs/message worst': (values.at(-1) as number).toFixed(2),
    'core share at this rate': `${(((median * perMinute) / 60_000_000) * 100).toFixed(3)}%`,
  }
}
console.table({
  'frames and commands (brotli, JSON, convert)': summarize((run) => run.reading),
  'selector (offer, batches)': summarize((run) => run.selecting),
  both: summarize((run) => run.reading + run.selecting),
})
