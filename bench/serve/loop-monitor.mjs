// Loaded into the `charpipe serve` process of the serve benches (`node --import`): answers the
// bench's IPC requests with the worst event-loop delay since the last reset, and the process's CPU
// time. The channel does not keep the server alive.
import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

// Its timer wakes the server every 5 ms, which an idle server would not do (and which counted into
// the first-chunk bench's CPU per round): on only from the first reset, for the benches that read it.
const histogram = monitorEventLoopDelay({ resolution: 5 })

/**
 * Beside the histogram, a 2 ms timer that notes, for each gap between two of its ticks, how long
 * the main thread ran in it and how long it waited for a core (Linux's `/proc/thread-self/schedstat`:
 * time on a CPU, time runnable on a run queue). A long gap the thread spent running is the server's
 * own work holding the loop; one it spent waiting is the machine's other load (the benches' clients
 * and mock model share its cores). Elsewhere both read as unknown.
 */
const gapTickMs = 2
const readSchedstat = () => {
  try {
    const [runNs, waitNs] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number)
    return { runMs: runNs / 1e6, waitMs: waitNs / 1e6 }
  } catch {
    return { runMs: Number.NaN, waitMs: Number.NaN }
  }
}
const noGap = { wallMs: 0, runMs: 0, waitMs: 0 }
let noting = false
let lastTick = 0
let lastStat = readSchedstat()
let worstGap = noGap
let longestRun = noGap
function noteGap() {
  const now = performance.now()
  const stat = readSchedstat()
  const gap = {
    wallMs: now - lastTick - gapTickMs,
    runMs: stat.runMs - lastStat.runMs,
    waitMs: stat.waitMs - lastStat.waitMs,
  }
  if (gap.wallMs > worstGap.wallMs) worstGap = gap
  if (gap.runMs > longestRun.runMs) longestRun = gap
  lastTick = now
  lastStat = stat
}

if (process.channel) {
  process.channel.unref()
  process.on('message', (message) => {
    if (message?.type === 'loop-reset') {
      histogram.enable()
      histogram.reset()
      worstGap = noGap
      longestRun = noGap
      lastTick = performance.now()
      lastStat = readSchedstat()
      if (!noting) setInterval(noteGap, gapTickMs).unref()
      noting = true
      process.send({ id: message.id })
    } else if (message?.type === 'loop-read') {
      process.send({
        id: message.id,
        maxMs: histogram.max / 1e6,
        p99Ms: histogram.percentile(99) / 1e6,
        worstGap,
        longestRun,
      })
    } else if (message?.type === 'cpu-read') {
      const usage = process.cpuUsage()
      process.send({ id: message.id, cpuUs: usage.user + usage.system })
    }
  })
}
