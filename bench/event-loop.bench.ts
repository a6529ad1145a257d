/**
 * Event-loop delay: the worst stall of the event loop (`perf_hooks.monitorEventLoopDelay`, its
 * maximum) while the engine with the default config (history and long-term memory in SQLite,
 * memory on) handles one giant text. Every other session of a server waits that long, so the goal
 * is at most 50 ms whatever arrives. The model is the mock model server in a child process
 * (provider `custom`), so its own work is not on the measured loop. Cases, each `SIZE` characters
 * (default 1,000,000) of unbroken Chinese text (the worst case for segmenters and BPE tokenizers):
 *   - input, default config: the turn's text (refused when longer than
 *     `conversation.max_input_chars`);
 *   - input, limit raised: the same with `max_input_chars` raised above `SIZE`, so the text is
 *     stored as history and as a memory;
 *   - model reply: a short input, the model streams `SIZE` characters (stored the same way); then
 *     the same in another session, once the code that handles it has run (and been optimised);
 *   - the next turn of that session: a short input and reply, the giant reply in the history it
 *     loads (and cuts: it cannot fit the model's window);
 *   - interrupted reply: the model streams `SIZE` characters in sentences of 1,000 and the turn is
 *     interrupted halfway (the model paces its chunks 2 ms apart so the turn is still running), with
 *     what the client heard: the reply is stored as far as it was heard
 *     (checked against the sentences spoken, joined back into text);
 *   - retrieval: a new engine on the same database answers an input that finds the giant memories
 *     (search, the memories in the prompt, the prompt counted and sent);
 *   - knowledge base: `SIZE` characters of paragraphs added with `memory.addKnowledge` (what
 *     `POST /api/kb` and `charpipe kb add` do), chunked, indexed and written in slices.
 * Each case is measured from its turn's start to the engine's `close()` (which waits for the memory
 * writes), the engine made before (a server makes it once), in a session of its own but for the
 * next turn's. The monitor's timer fires every millisecond: its longest interval is a stall's
 * length to within 1 ms (at 5 ms, an idle loop read 5.1 ms and a stall up to 5 ms more than it was).
 * The idle row is the noise floor: on a busy machine the scheduler alone stalls the loop that long.
 * The engine is the built package (`dist/`, built first when older than `src/`) in a plain Node
 * process of its own (`event-loop/measured-process.mjs`), as users run it.
 *
 *   node --import tsx bench/event-loop.bench.ts
 *   SIZE=80000 node --import tsx bench/event-loop.bench.ts
 *   ONLY=reply node --import tsx bench/event-loop.bench.ts    (or ONLY=input, ONLY=kb)
 *   BENCH_MEASURED_NODE_FLAGS='--cpu-prof --cpu-prof-dir=profiles' node --import tsx bench/event-loop.bench.ts
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { conversationSchema } from '../src/config/schema.js'
import type { MockReply } from '../src/testing/index.js'
import { ensureBuilt } from './built-package.js'
import { makeGiantText } from './event-loop/giant-text.mjs'

const size = Number(process.env.SIZE ?? 1_000_000)
const only = process.env.ONLY
const here = dirname(fileURLToPath(import.meta.url))
const folder = mkdtempSync(join(tmpdir(), 'charpipe-event-loop-'))
// The model's giant reply; as an input, the measured process makes its own copy (`giantInput`): a
// megabyte sent over IPC is parsed there.
const giant = makeGiantText(size)
const giantInput = { giantInput: size }
// The setting is new: a checkout without it is measured with the default config alone.
const hasInputLimit = 'max_input_chars' in conversationSchema.shape

const mockProcess = fork(join(here, 'turn-cost', 'mock-process.ts'), [], { execArgv: ['--import', 'tsx'] })
const [listening] = (await once(mockProcess, 'message')) as [{ url: string }]

// The engine runs in a process of its own, plain Node and the built package, as users run it
// (event-loop/measured-process.mjs): this one has the TypeScript loader.
ensureBuilt()
// `BENCH_MEASURED_NODE_FLAGS='--cpu-prof …'` adds Node flags to that process alone.
const measuredFlags = process.env.BENCH_MEASURED_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []
const measured = fork(join(here, 'event-loop', 'measured-process.mjs'), [], { execArgv: measuredFlags })
await once(measured, 'message')

async function useReply(reply: MockReply): Promise<void> {
  mockProcess.send({ type: 'reply', reply })
  await once(mockProcess, 'message')
}

interface CaseResult {
  name: string
  worstMs: number
  wallMs: number
  outcome: string
}

async function runCase(name: string, spec: Record<string, unknown>): Promise<CaseResult> {
  measured.send({
    baseUrl: `${listening.url}/v1`,
    sqlitePath: join(folder, 'charpipe.db'),
    ...spec,
  })
  const [answer] = (await once(measured, 'message')) as [Omit<CaseResult, 'name'>]
  return { name, ...answer }
}

async function measure(
  name: string,
  text: string | typeof giantInput,
  reply: MockReply,
  conversation: Record<string, unknown> = {},
  /** Interrupt the turn once its text is this long, saying all of it was heard. */
  interruptAt?: number,
  /** Each case talks in a session of its own unless given one: its history is its own. */
  session = name,
): Promise<CaseResult> {
  await useReply(reply)
  const input = typeof text === 'string' ? { text } : text
  return runCase(name, { type: 'turn', ...input, conversation, interruptAt, session })
}

/** The worst stall while `SIZE` characters of paragraphs go into the knowledge base. */
function measureKnowledge(): Promise<CaseResult> {
  const paragraph = 'The lighthouse keeper logs every ship that passes the reef. 灯塔守护者记录每一艘船。\n\n'
  const text = paragraph.repeat(Math.ceil(size / paragraph.length)).slice(0, size)
  return runCase('knowledge base document', { type: 'knowledge', text })
}

/** The worst delay of an idle second: what the machine's other load alone costs the measured loop. */
const measureIdle = () => runCase('idle second (noise floor)', { type: 'idle' })

// Each row is printed as soon as it is measured: a case that stalls for minutes still leaves the
// rows before it.
function report(result: CaseResult): void {
  console.log(
    `| ${result.name} | ${result.worstMs.toFixed(1)} ms | ${(result.wallMs / 1000).toFixed(1)} s | ${result.outcome} |`,
  )
}
const shortReply: MockReply = { text: '好的。', chunkSize: 64 }
console.log(`\nWorst event-loop delay, ${size.toLocaleString('en')} characters of unbroken Chinese text`)
console.log('| case | worst event-loop delay | wall | outcome |')
console.log('| --- | ---: | ---: | --- |')
try {
  // A warm-up turn: loading modules and opening the database is not what is measured.
  await measure('warm-up', '你好', shortReply)
  report(await measureIdle())
  if (only !== 'kb') {
    report(await measure('input, default config', giantInput, shortReply))
    if (hasInputLimit && only !== 'reply') {
      report(await measure('input, limit raised', giantInput, shortReply, { max_input_chars: size + 1_000 }))
    }
    if (only !== 'input') {
      report(await measure('model reply', '讲个很长的故事吧', { text: giant, chunkSize: 256 }))
      // The first giant reply of the process runs code not yet optimised; the same again does not.
      report(await measure('the same reply, once more', '讲个很长的故事吧', { text: giant, chunkSize: 256 }))
      report(
        await measure(
          'the next turn, that reply in its history',
          '再说一遍',
          shortReply,
          {},
          undefined,
          'model reply',
        ),
      )
    }
    if (only !== 'input') {
      const story = `${'慢'.repeat(999)}。`.repeat(Math.ceil(size / 1000)).slice(0, size)
      report(
        await measure(
          'interrupted reply',
          '讲个很长的故事吧',
          { text: story, chunkSize: 4000, delayMs: 2 },
          {},
          size / 2,
        ),
      )
    }
    if (only !== 'reply' && only !== 'input')
      report(await measure('retrieval of the giant memories', 'violin', shortReply))
  }
  if (only === undefined || only === 'kb') report(await measureKnowledge())
} finally {
  measured.send({ type: 'close' })
  mockProcess.send({ type: 'close' })
  rmSync(folder, { recursive: true, force: true })
}
