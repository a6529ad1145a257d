// Loaded into the `charpipe serve` process of the serve benches (`node --import`): answers the
// bench's IPC requests with the worst event-loop delay since the last reset, and the process's CPU
// time. The channel does not keep the server alive.
import { monitorEventLoopDelay } from 'node:perf_hooks'

// Its timer wakes the server every 5 ms, which an idle server would not do (and which counted into
// the first-chunk bench's CPU per round): on only from the first reset, for the benches that read it.
const histogram = monitorEventLoopDelay({ resolution: 5 })

/**
 * Beside the histogram, a 2 ms timer that notes, for each gap between two of its ticks, the wall
 * time and the process's CPU time in it. A long gap with little CPU in it is the server waiting
 * for a core (the benches' clients and mock model share the machine); one full of CPU is the
 * server's own work holding the loop. `process.cpuUsage` counts every thread of the process (V8's
 * compiler and GC threads too), so the CPU of a gap is an upper bound of the main thread's.
 */
const gapTickMs = 2
let noting = false
let lastTick = 0
let lastCpu = 0
let worstGap = { wallMs: 0, cpuMs: 0 }
let mostCpuGap = { wallMs: 0, cpuMs: 0 }
const cpuNow = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
function noteGap() {
  const now = performance.now()
  const cpu = cpuNow()
  const gap = { wallMs: now - lastTick - gapTickMs, cpuMs: cpu - lastCpu }
  if (gap.wallMs > worstGap.wallMs) worstGap = gap
  if (gap.cpuMs > mostCpuGap.cpuMs) mostCpuGap = gap
  lastTick = now
  lastCpu = cpu
}

if (process.channel) {
  process.channel.unref()
  process.on('message', (message) => {
    if (message?.type === 'loop-reset') {
      histogram.enable()
      histogram.reset()
      worstGap = { wallMs: 0, cpuMs: 0 }
      mostCpuGap = { wallMs: 0, cpuMs: 0 }
      lastTick = performance.now()
      lastCpu = cpuNow()
      if (!noting) setInterval(noteGap, gapTickMs).unref()
      noting = true
      process.send({ id: message.id })
    } else if (message?.type === 'loop-read') {
      process.send({
        id: message.id,
        maxMs: histogram.max / 1e6,
        p99Ms: histogram.percentile(99) / 1e6,
        worstGap,
        mostCpuGap,
      })
    } else if (message?.type === 'cpu-read') {
      const usage = process.cpuUsage()
      process.send({ id: message.id, cpuUs: usage.user + usage.system })
    }
  })
}
