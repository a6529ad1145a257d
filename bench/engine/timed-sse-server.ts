/**
 * A minimal OpenAI-compatible streaming server that records, in this process's clock, the moment it
 * writes the chunk completing each sentence — so the bench can measure chunk-on-the-wire to
 * `llm_sentence` including HTTP, SSE parsing and the SDK.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'

export interface TimedSseServer {
  url: string
  /** performance.now() when the chunk completing sentence i was written, per request. */
  sentenceWrites: number[][]
  close(): Promise<void>
}

export async function startTimedSseServer(options: {
  chunks: string[]
  delayMs: number
  /** Never end the stream (interrupt measurements). */
  hang?: boolean
}): Promise<TimedSseServer> {
  const sentenceWrites: number[][] = []
  const server: Server = createServer(async (request, response) => {
    for await (const _ of request) {
      // drain the body
    }
    const writes: number[] = []
    sentenceWrites.push(writes)
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    let closed = false
    response.on('close', () => {
      closed = true
    })
    for (const text of options.chunks) {
      if (closed) return
      await new Promise((resolve) => setTimeout(resolve, options.delayMs))
      const body = {
        id: 'x',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
      }
      response.write(`data: ${JSON.stringify(body)}\n\n`)
      if (/[。！？]/.test(text)) writes.push(performance.now())
    }
    if (options.hang) return
    response.end('data: [DONE]\n\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    sentenceWrites,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
