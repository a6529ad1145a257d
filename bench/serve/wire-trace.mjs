// Loaded into the `charpipe serve` process of the serve benches (`node --import`) when
// `BENCH_WIRE_TRACE` is set: notes when each TCP socket of the process reads and writes, on a clock
// the bench's processes share (`performance.timeOrigin + performance.now()`, milliseconds since the
// epoch), and hands the notes to the bench over IPC. It wraps two methods of `net.Socket` that are
// Node's own (`push`, the read path's; `_writeGeneric`, every write's), so it is for benches only.
import net from 'node:net'

const clock = () => performance.timeOrigin + performance.now()
// The most notes kept: older ones are dropped first (a round makes about ten).
const maxNotes = 200_000
let notes = []

const push = net.Socket.prototype.push
net.Socket.prototype.push = function (chunk, ...rest) {
  if (chunk && notes.length < maxNotes) notes.push([clock(), 'read', this.localPort, this.remotePort])
  return push.call(this, chunk, ...rest)
}
const writeGeneric = net.Socket.prototype._writeGeneric
net.Socket.prototype._writeGeneric = function (...args) {
  if (notes.length < maxNotes) notes.push([clock(), 'write', this.localPort, this.remotePort])
  return writeGeneric.apply(this, args)
}

if (process.channel) {
  process.on('message', (message) => {
    if (message?.type !== 'wire-read') return
    process.send({ id: message.id, notes })
    notes = []
  })
}
