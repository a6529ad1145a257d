/**
 * What every fuzzed HTTP door is held to for each generated case: the answer is a success or a
 * refusal that says why (a 4xx with `{error: {message}}`), never a server error nor an internal
 * one; and a case no door may take (truncated JSON) is refused.
 */
import { expect } from 'vitest'
import { type FuzzedText, refusedKinds } from '../support/fuzzed-inputs.js'

/** A refusal's `{error: {message}}`, when the answer is one. */
function readRefusalMessage(text: string): unknown {
  try {
    return (JSON.parse(text) as { error?: { message?: unknown } }).error?.message
  } catch {
    return undefined
  }
}

/** An answer is a success or a refusal with a reason; a server error or an internal one is a failure. */
export function expectAnswered(door: string, sent: FuzzedText | string, status: number, text: string): void {
  const shown = typeof sent === 'string' ? sent : `${sent.kind} ${sent.contentType}: ${sent.text}`
  const what = `${door} ← ${shown.slice(0, 300)}`
  expect(status, `${what}: no server error (${text.slice(0, 200)})`).toBeLessThan(500)
  if (status >= 400) {
    const message = readRefusalMessage(text)
    expect(typeof message, `${what}: a refusal says why (${text.slice(0, 200)})`).toBe('string')
    expect((message as string).length, `${what}: a reason`).toBeGreaterThan(0)
  }
  expect(text, `${what}: a client's error, not the server's`).not.toMatch(/see the server log|at .*\.ts:\d+/)
}

/** `expectAnswered` for a generated body, which must also be refused when no door may take it. */
export function expectBodyAnswered(door: string, sent: FuzzedText, status: number, text: string): void {
  expectAnswered(door, sent, status, text)
  if (refusedKinds.has(sent.kind))
    expect(status, `${door} ← ${sent.kind}: ${sent.text.slice(0, 300)}: refused`).toBeGreaterThanOrEqual(400)
}
