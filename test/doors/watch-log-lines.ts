/**
 * The server's log lines as they are written, for a test that waits for one: each new line wakes
 * the wait (no polling), so a cut the server logs is seen when it happens, however loaded the
 * machine is.
 */

export interface LogLineWatcher {
  /** Resolves with the first line from index `from` on that `matches`; rejects past `guardMs`. */
  waitFor(options: { matches: (line: string) => boolean; from: number; guardMs?: number }): Promise<string>
}

/**
 * Watches `lines`, the array a test server appends its log to (start-test-server.ts): its `push`
 * is wrapped on this one array, so every line appended wakes the waits.
 */
export function watchLogLines(lines: string[]): LogLineWatcher {
  const waiters = new Set<() => void>()
  const push = lines.push.bind(lines)
  lines.push = (...items: string[]) => {
    const length = push(...items)
    for (const wake of [...waiters]) wake()
    return length
  }
  return {
    waitFor({ matches, from, guardMs = 60_000 }) {
      return new Promise((resolve, reject) => {
        // A guard against a hang, not a measure: the line comes in milliseconds on a quiet machine.
        const guard = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching log line within ${guardMs} ms (${lines.length - from} lines since)`))
        }, guardMs)
        const check = () => {
          const found = lines.slice(from).find(matches)
          if (found === undefined) return
          waiters.delete(check)
          clearTimeout(guard)
          resolve(found)
        }
        waiters.add(check)
        check()
      })
    },
  }
}
