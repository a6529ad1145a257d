/**
 * A push-to-pull queue: the turn task pushes events as they happen, the caller's `for await` pulls
 * them. Events are never dropped; a slow consumer only delays itself, never the turn.
 */
export interface EventChannel<T> extends AsyncIterable<T> {
  push(value: T): void
  close(): void
}

export function createEventChannel<T>(): EventChannel<T> {
  const buffer: T[] = []
  let closed = false
  let wake: (() => void) | undefined

  const notify = () => {
    const resolve = wake
    wake = undefined
    resolve?.()
  }

  return {
    push(value) {
      if (closed) return
      buffer.push(value)
      notify()
    },
    close() {
      closed = true
      notify()
    },
    async *[Symbol.asyncIterator]() {
      while (true) {
        if (buffer.length > 0) {
          yield buffer.shift() as T
          continue
        }
        if (closed) return
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    },
  }
}
