// Loaded into the `charpipe serve` process of the serve benches (`node --import`): answers the
// bench's IPC requests with the worst event-loop delay since the last reset, and the process's CPU
// time. The channel does not keep the server alive.
import { monitorEventLoopDelay } from 'node:perf_hooks'

// Its timer wakes the server every 5 ms, which an idle server would not do (and which counted into
// the first-chunk bench's CPU per round): on only from the first reset, for the benches that read it.
const histogram = monitorEventLoopDelay({ resolution: 5 })

/**
 * Beside the histogram, a 2 ms timer that notes, for each gap between two of its ticks, the
 * process's CPU time in it (`process.cpuUsage`: every thread, V8's compiler and GC threads too, so
 * an upper bound of the main thread's). A long gap with as much CPU in it is the server's own work
 * holding the loop; one with little is the server waiting for a core beside the machine's other
 * load (the benches' clients and mock model share its cores). Linux's per-thread counters were
 * tried for this and dropped: they move at the scheduler's ticks (4 ms here), too coarse.
 */
const gapTickMs = 2
const cpuMsNow = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
const noGap = { wallMs: 0, cpuMs: 0 }
let noting = false
let lastTick = 0
let lastCpu = 0
let worstGap = noGap
let busiestGap = noGap
function noteGap() {
  const now = performance.now()
  const cpu = cpuMsNow()
  const gap = { wallMs: now - lastTick - gapTickMs, cpuMs: cpu - lastCpu }
  if (gap.wallMs > worstGap.wallMs) worstGap = gap
  if (gap.cpuMs > busiestGap.cpuMs) busiestGap = gap
  lastTick = now
  lastCpu = cpu
}

if (process.channel) {
  process.channel.unref()
  process.on('message', (message) => {
    if (message?.type === 'loop-reset') {
      histogram.enable()
      histogram.reset()
      worstGap = noGap
      busiestGap = noGap
      lastTick = performance.now()
      lastCpu = cpuMsNow()
      if (!noting) setInterval(noteGap, gapTickMs).unref()
      noting = true
      process.send({ id: message.id })
    } else if (message?.type === 'loop-read') {
      process.send({
        id: message.id,
        maxMs: histogram.max / 1e6,
        p99Ms: histogram.percentile(99) / 1e6,
        worstGap,
        busiestGap,
      })
    } else if (message?.type === 'cpu-read') {
      process.send({ id: message.id, cpuUs: cpuMsNow() * 1000 })
    }
  })
}
