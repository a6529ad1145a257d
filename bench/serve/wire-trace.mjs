// Loaded into the `charpipe serve` process of the serve benches (`node --import`) when
// `BENCH_WIRE_TRACE` is set: notes when each TCP socket of the process reads and writes, on a clock
// the bench's processes share (`performance.timeOrigin + performance.now()`, milliseconds since the
// epoch), and hands the notes to the bench over IPC. It wraps two methods of `net.Socket` that are
// Node's own (`push`, the read path's; `_writeGeneric`, every write's), so it is for benches only.
// Each note also carries the process's CPU time until then (`process.cpuUsage`, every thread, ms):
// between two notes, the server's own work.
import net from 'node:net'

const clock = () => performance.timeOrigin + performance.now()
const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
// The most notes kept; past it new ones are dropped (a first-chunk round makes about ten).
const maxNotes = 200_000
let notes = []
// Set by the bench (`wire-filter`): only the sockets of this local port (the server's own) are noted.
let onlyLocalPort

const push = net.Socket.prototype.push
net.Socket.prototype.push = function (chunk, ...rest) {
  if (chunk && notes.length < maxNotes && (onlyLocalPort === undefined || this.localPort === onlyLocalPort))
    notes.push([clock(), 'read', this.localPort, this.remotePort, cpuMs()])
  return push.call(this, chunk, ...rest)
}
const writeGeneric = net.Socket.prototype._writeGeneric
net.Socket.prototype._writeGeneric = function (...args) {
  if (notes.length < maxNotes && (onlyLocalPort === undefined || this.localPort === onlyLocalPort))
    notes.push([clock(), 'write', this.localPort, this.remotePort, cpuMs()])
  return writeGeneric.apply(this, args)
}

if (process.channel) {
  process.on('message', (message) => {
    if (message?.type === 'wire-filter') {
      onlyLocalPort = message.localPort
      notes = []
      process.send({ id: message.id })
    } else if (message?.type === 'wire-read') {
      process.send({ id: message.id, notes })
      notes = []
    }
  })
}
