/**
 * A stdio MCP server's output, split into messages in linear time. The SDK's `ReadBuffer` joins each
 * chunk to everything it holds (`Buffer.concat`), so a line that never ends costs the square of its
 * length: 10 MiB in 64 KiB chunks is about 800 MiB copied, the event loop blocked for about 300 ms
 * before the bound is reached (BENCHMARKS.md, "Event-loop delay"). Here chunks are kept apart, each
 * searched for a line end once, and joined once, when their line is complete. What the SDK's buffer
 * does otherwise is kept: the same bound on what is held (counted as it counts it), the same error,
 * a `\r` before the `\n` dropped, and `readMessage` parsing one line per call.
 */

export interface StdioReadBuffer {
  append(chunk: Buffer): void
  /** The next complete line, parsed; null until one is complete. */
  readMessage(): unknown
  clear(): void
}

export interface LineBufferOptions {
  /** Most bytes held at once, complete lines not yet read included. */
  maxBytes: number
  /** A line's text to a message (throws on a line that is not one). */
  parse(line: string): unknown
}

const lineFeed = 0x0a

export function createLineBuffer(options: LineBufferOptions): StdioReadBuffer {
  let chunks: Buffer[] = []
  let bytes = 0
  /** Leading chunks already searched and holding no line end. */
  let searched = 0

  const clear = () => {
    chunks = []
    bytes = 0
    searched = 0
  }

  return {
    append(chunk) {
      if (bytes + chunk.length > options.maxBytes) {
        clear()
        throw new Error(`ReadBuffer exceeded maximum size of ${options.maxBytes} bytes`)
      }
      chunks.push(chunk)
      bytes += chunk.length
    },
    readMessage() {
      for (let index = searched; index < chunks.length; index++) {
        const chunk = chunks[index] as Buffer
        const end = chunk.indexOf(lineFeed)
        if (end === -1) {
          searched = index + 1
          continue
        }
        const line = Buffer.concat([...chunks.slice(0, index), chunk.subarray(0, end)])
        const rest = chunk.subarray(end + 1)
        chunks = rest.length ? [rest, ...chunks.slice(index + 1)] : chunks.slice(index + 1)
        bytes -= line.length + 1
        searched = 0
        return options.parse(line.toString('utf8').replace(/\r$/, ''))
      }
      return null
    },
    clear,
  }
}
