/**
 * Prompt prefix share: over a 30-turn conversation with long-term memory on, the share of each
 * request's prompt tokens that repeats the previous request's prompt from its start — what a
 * provider prompt cache (DeepSeek's disk cache, OpenAI's cached prefix, Anthropic breakpoints) can
 * reuse. Compared: the default layout (memories at the end of the system prompt, history trimmed one
 * turn at a time) and the cache layout (`injection-assembler.memory_position: before_input`,
 * `session-loader.trim_block: 5`).
 *
 * Run: node --import tsx bench/prompt-prefix.bench.ts      (TURNS=30)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../src/characters/load-config.js'
import type { CharpipeConfigInput } from '../src/config/schema.js'
import { createCharpipe } from '../src/engine/index.js'
import type { ChatProvider, ProviderEvent } from '../src/providers/types.js'
import { estimateTokens } from '../src/shared/estimate-tokens.js'
import { createLogger } from '../src/shared/logger.js'
import { messageText } from '../src/shared/messages.js'

const turns = Number(process.env.TURNS ?? 30)
const logger = createLogger({ level: 'silent' })
const persona =
  '你是小雪，一个活泼开朗的大学生，喜欢音乐、旅行和美食。说话带点俏皮，常用语气词，关心对方的生活细节。'.repeat(
    8,
  )
const topics = [
  '周末去爬山',
  '最近在学吉他',
  '我养了一只猫叫咪咪',
  '想去成都吃火锅',
  '考试压力有点大',
  '昨天看了一场电影',
]

/** A provider that records every prompt it is sent and answers with one short sentence. */
function createRecordingProvider() {
  const prompts: string[][] = []
  const provider: ChatProvider = {
    name: 'recording',
    model: 'recording',
    async *streamChat(request): AsyncGenerator<ProviderEvent> {
      prompts.push(request.messages.map((message) => `${message.role}\u0000${messageText(message)}\u0001`))
      yield { type: 'text-delta', text: `好呀，我记住了这件事，第${prompts.length}次聊天真开心。` }
      yield { type: 'finish', reason: 'stop' }
    },
  }
  return { provider, prompts }
}

/** Tokens of `current` that repeat `previous` from the start, and the tokens of `current`. */
function sharedPrefixTokens(previous: string[], current: string[]): { shared: number; total: number } {
  const whole = current.join('')
  const before = previous.join('')
  let length = 0
  while (length < whole.length && length < before.length && whole[length] === before[length]) length++
  return { shared: estimateTokens(whole.slice(0, length)), total: estimateTokens(whole) }
}

async function measure(label: string, pipeline: CharpipeConfigInput['pipeline']) {
  const folder = mkdtempSync(join(tmpdir(), 'prefix-bench-'))
  const { provider, prompts } = createRecordingProvider()
  const config = parseConfig(
    {
      character: { name: '小雪', persona, reply_format: 'plain' },
      history: { store: 'sqlite', max_turns: 10 },
      memory: { enabled: true, top_k: 3 },
      storage: { sqlite_path: join(folder, 'charpipe.db') },
      pipeline,
    },
    { logger },
  ).config
  const charpipe = await createCharpipe(config, { logger, provider })
  try {
    for (let turn = 0; turn < turns; turn++) {
      const text = `${topics[turn % topics.length]}，你还记得吗？这是第${turn + 1}句。`
      for await (const _event of charpipe.generate({ text, session: 'bench' })) {
        // drain
      }
    }
  } finally {
    await charpipe.close()
    rmSync(folder, { recursive: true, force: true })
  }
  let shared = 0
  let total = 0
  for (let index = 1; index < prompts.length; index++) {
    const pair = sharedPrefixTokens(prompts[index - 1]!, prompts[index]!)
    shared += pair.shared
    total += pair.total
  }
  return {
    layout: label,
    requests: prompts.length,
    'prompt tokens': total,
    'prefix share': `${((100 * shared) / total).toFixed(1)}%`,
  }
}

console.log(`Prompt prefix share over ${turns} turns, memory on (top_k 3), history.max_turns 10`)
console.table([
  await measure('default (memories in the system prompt)', {}),
  await measure('cache layout (memories before the input, trim_block 5)', {
    processors: {
      'injection-assembler': { memory_position: 'before_input' },
      'session-loader': { trim_block: 5 },
    },
  }),
])
