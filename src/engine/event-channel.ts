/**
 * A push-to-pull queue: the turn task pushes events as they happen, the caller's `for await` pulls
 * them. Events are never dropped; a slow consumer only delays itself, never the turn. The iterator
 * is written out rather than an async generator: it is on the path of every event, and a waiting
 * `next()` is resolved straight from `push`.
 */
export interface EventChannel<T> extends AsyncIterable<T> {
  push(value: T): void
  close(): void
}

export function createEventChannel<T>(): EventChannel<T> {
  let buffer: T[] = []
  let head = 0
  let closed = false
  // Set once the consumer stopped (return): nothing more is handed out.
  let finished = false
  let waiting: ((result: IteratorResult<T>) => void) | undefined
  // `next()` calls made while one already waits (a caller not awaiting each): served in order.
  let queued: ((result: IteratorResult<T>) => void)[] | undefined

  const take = (): IteratorResult<T> | undefined => {
    if (finished) return { value: undefined, done: true }
    if (head < buffer.length) {
      const value = buffer[head]!
      head++
      if (head === buffer.length) {
        buffer = []
        head = 0
      }
      return { value, done: false }
    }
    if (closed) return { value: undefined, done: true }
    return undefined
  }

  const wakeWaiting = () => {
    while (waiting) {
      const result = take()
      if (!result) return
      const resolve = waiting
      waiting = queued?.shift()
      resolve(result)
    }
  }

  const iterator: AsyncIterableIterator<T> = {
    next() {
      const result = take()
      if (result) return Promise.resolve(result)
      return new Promise((resolve) => {
        if (!waiting) waiting = resolve
        else {
          queued ??= []
          queued.push(resolve)
        }
      })
    },
    return() {
      finished = true
      wakeWaiting()
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }

  return {
    push(value) {
      if (closed || finished) return
      buffer.push(value)
      wakeWaiting()
    },
    close() {
      closed = true
      wakeWaiting()
    },
    [Symbol.asyncIterator]: () => iterator,
  }
}
