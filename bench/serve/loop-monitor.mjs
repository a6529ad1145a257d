// Loaded into the `charpipe serve` process of the serve benches (`node --import`): answers the
// bench's IPC requests with the worst event-loop delay since the last reset, and the process's CPU
// time. The channel does not keep the server alive.
import { monitorEventLoopDelay } from 'node:perf_hooks'

// Its timer wakes the server every 5 ms, which an idle server would not do (and which counted into
// the first-chunk bench's CPU per round): on only from the first reset, for the benches that read it.
const histogram = monitorEventLoopDelay({ resolution: 5 })
if (process.channel) {
  process.channel.unref()
  process.on('message', (message) => {
    if (message?.type === 'loop-reset') {
      histogram.enable()
      histogram.reset()
      process.send({ id: message.id })
    } else if (message?.type === 'loop-read') {
      process.send({ id: message.id, maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 })
    } else if (message?.type === 'cpu-read') {
      const usage = process.cpuUsage()
      process.send({ id: message.id, cpuUs: usage.user + usage.system })
    }
  })
}
