/**
 * `vi.waitFor` and `vi.waitUntil` wait for an event a test cannot be told of directly (a socket
 * connected, a line logged). Their deadline is when a wait is given up as a failure, not a timing
 * the test asserts: vitest's default of 1 s is shorter than a loaded 2-core machine needs for a
 * connection or a child's answer, so a wait that names no deadline gets 15 s here.
 */
import { vi } from 'vitest'

const defaultDeadlineMs = 15_000

type WaitOptions = number | { timeout?: number; interval?: number } | undefined

function withDeadline(options: WaitOptions): WaitOptions {
  if (typeof options === 'number') return options
  return { ...options, timeout: options?.timeout ?? defaultDeadlineMs }
}

const waitFor = vi.waitFor.bind(vi)
const waitUntil = vi.waitUntil.bind(vi)
vi.waitFor = ((callback, options) => waitFor(callback, withDeadline(options))) as typeof vi.waitFor
vi.waitUntil = ((callback, options) => waitUntil(callback, withDeadline(options))) as typeof vi.waitUntil
