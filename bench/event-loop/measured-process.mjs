// The measured process of bench/event-loop.bench.ts: plain Node and the built package (`dist/`), as
// `charpipe serve` runs, with no TypeScript loader beside it (its thread answered every dynamic
// import on the same two cores, and it turns on source maps, which the first error of a case would
// parse). The bench sends one case at a time over IPC; this process runs it with the event-loop
// monitor on and answers `{ worstMs, wallMs, outcome }`.
import { dirname, join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { makeGiantText } from './giant-text.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const { createCharpipe, createLogger, parseConfig } = await import(
  pathToFileURL(join(root, 'dist', 'index.js')).href
)
const logger = createLogger({ level: 'silent' })
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function configOf(spec) {
  const input = {
    llm: { provider: 'custom', base_url: spec.baseUrl, model: 'bench', max_retries: 0 },
    storage: { sqlite_path: spec.sqlitePath },
    conversation: spec.conversation ?? {},
  }
  return parseConfig(input, { logger }).config
}

/**
 * One turn, from its start to the engine's `close()` (which waits for the memory writes). The engine
 * is made before the monitor starts: a server makes it once, not per turn. The monitor's timer fires
 * every millisecond, so its longest interval is the longest stall to within 1 ms.
 */
async function runTurn(spec) {
  const text = spec.giantInput === undefined ? spec.text : makeGiantText(spec.giantInput)
  const charpipe = await createCharpipe(configOf(spec), { logger })
  const monitor = monitorEventLoopDelay({ resolution: 1 })
  monitor.enable()
  const started = performance.now()
  let outcome = 'ok'
  let replied = 0
  let heard = ''
  const controller = new AbortController()
  for await (const event of charpipe.generate(
    { text, session: spec.session },
    { signal: controller.signal },
  )) {
    if (event.type === 'llm_error') outcome = event.code
    if (event.type === 'llm_done') {
      replied = event.text.length
      if (event.interrupted) outcome = 'interrupted'
    }
    if (spec.interruptAt !== undefined && event.type === 'llm_chunk') {
      heard += event.text
      if (heard.length >= spec.interruptAt) controller.abort({ heard })
    }
  }
  await charpipe.close()
  const wallMs = performance.now() - started
  // The monitor records a stall when its timer next fires: let it fire once after the last one
  // (a stall that ends in the same microtask run as close() would go unrecorded otherwise).
  await pause(50)
  monitor.disable()
  if (outcome === 'ok' || outcome === 'interrupted') outcome = `${outcome}, reply ${replied} chars`
  return { worstMs: monitor.max / 1e6, wallMs, outcome }
}

/** The text added to the knowledge base, the engine made before the monitor starts. */
async function addKnowledge(spec) {
  const charpipe = await createCharpipe(configOf(spec), { logger })
  const monitor = monitorEventLoopDelay({ resolution: 1 })
  monitor.enable()
  const started = performance.now()
  let outcome = 'ok'
  try {
    const document = await charpipe.memory.addKnowledge({ name: 'bench.md', text: spec.text })
    outcome = `ok, ${document.chunks} chunks`
  } catch (error) {
    outcome = error instanceof Error ? error.message : String(error)
  }
  const wallMs = performance.now() - started
  await pause(50)
  monitor.disable()
  await charpipe.close()
  return { worstMs: monitor.max / 1e6, wallMs, outcome }
}

/** The worst delay of an idle second: what the machine's other load alone costs this loop. */
async function idle() {
  const monitor = monitorEventLoopDelay({ resolution: 1 })
  monitor.enable()
  await pause(1_000)
  monitor.disable()
  return { worstMs: monitor.max / 1e6, wallMs: 1_000, outcome: '' }
}

const cases = { turn: runTurn, knowledge: addKnowledge, idle }
process.on('message', async (spec) => {
  if (spec.type === 'close') return process.disconnect()
  process.send(await cases[spec.type](spec))
})
process.send({ ready: true })
