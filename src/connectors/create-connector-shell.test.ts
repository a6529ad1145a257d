import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../shared/logger.js'
import type { ConnectorHost } from './connector-host.js'
import { type CreateConnectorShellOptions, createConnectorShell } from './create-connector-shell.js'

type Listener = (event: unknown) => void

/** A host that records follows and audience batches, and can be told to refuse. */
function createRecordingHost(refuse?: 'throw' | 'reject') {
  const listeners = new Map<string, Listener>()
  const sent: unknown[] = []
  let unfollowed = 0
  const host: ConnectorHost = {
    audience: {
      send(input) {
        if (refuse === 'throw') throw new Error('queue full')
        sent.push(input)
        return (
          refuse === 'reject' ? Promise.reject(new Error('turn limit')) : { accepted: 1, dropped: [] }
        ) as never
      },
    },
    sessions: {
      follow({ session, onEvent }) {
        listeners.set(session, onEvent as Listener)
        return () => {
          unfollowed += 1
        }
      },
    },
    run: async () => {},
  }
  return { host, listeners, sent, unfollowed: () => unfollowed }
}

function createShell(overrides: Partial<CreateConnectorShellOptions> = {}) {
  const lines: string[] = []
  const logger = createLogger({
    level: 'info',
    format: 'json',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    }),
  })
  let time = 0
  const recording = createRecordingHost()
  const shell = createConnectorShell({
    kind: 'twitch',
    name: 'stream',
    character: '',
    host: recording.host,
    logger,
    secrets: [],
    linkName: 'the Twitch chat connection',
    reachable: () => true,
    listSessions: () => ['twitch:stream:chan'],
    now: () => time,
    ...overrides,
  })
  return { shell, lines, recording, advance: (ms: number) => (time += ms) }
}

const done = (text: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'llm_done',
  session: 's',
  turn: 't',
  text,
  emotion: 'neutral',
  interrupted: false,
  ...extra,
})

describe('createConnectorShell', () => {
  it('turns what a guarded handler throws or rejects with into a counted refusal', async () => {
    const { shell } = createShell()
    const guarded = shell.guard((kind: string) => {
      if (kind === 'throw') throw new TypeError('Cannot convert object to primitive value')
      if (kind === 'reject') return Promise.reject(new Error('later'))
      if (kind === 'thenable')
        return {
          // biome-ignore lint/suspicious/noThenProperty: a thenable that throws is the case under test.
          then: () => {
            throw new Error('a thenable that throws')
          },
        }
    })
    for (const kind of ['throw', 'reject', 'thenable', 'fine']) expect(() => guarded(kind)).not.toThrow()
    await new Promise((resolve) => setImmediate(resolve))
    expect(shell.status().malformed).toEqual({ unreadable: 3 })
  })

  it('writes one warning per reason per interval however many inputs are refused, and says how many were left out', () => {
    const { shell, lines, advance } = createShell()
    for (let index = 0; index < 3000; index += 1) shell.refuse('not_irc', 'a line that is not an IRC message')
    shell.refuse('line_too_long', 'a line of 20000 characters')
    expect(lines).toHaveLength(2)
    advance(10_000)
    shell.refuse('not_irc', 'again')
    expect(lines).toHaveLength(3)
    expect(JSON.parse(lines[2] ?? '{}')).toMatchObject({ reason: 'not_irc', suppressed: 2999 })
    expect(shell.status().malformed).toEqual({ not_irc: 3001, line_too_long: 1 })
  })

  it('hands only finished, uninterrupted replies with text on, and drops (and logs) one the link cannot carry', () => {
    let reachable = true
    const { shell, lines, recording } = createShell({ reachable: () => reachable })
    const replies: unknown[] = []
    shell.follow({ session: 's', onReply: (reply) => replies.push(reply) })
    const emit = recording.listeners.get('s') as Listener
    emit({ type: 'llm_chunk', text: 'a' })
    emit(done('  '))
    emit(done({ toString: 1 }))
    emit(done('cut short', { interrupted: true }))
    emit(done(' hello ', { replying_to: ['m1'] }))
    expect(replies).toEqual([{ text: 'hello', replyingTo: ['m1'] }])
    reachable = false
    emit(done('while down'))
    expect(replies).toHaveLength(1)
    expect(lines.some((line) => line.includes('reply dropped: the Twitch chat connection is down'))).toBe(
      true,
    )
  })

  it('follows without posting when replies are off, and unfollows and cleans up on close', async () => {
    const { shell, recording } = createShell()
    const replies: unknown[] = []
    shell.follow({ session: 's', postsReplies: false, onReply: (reply) => replies.push(reply) })
    ;(recording.listeners.get('s') as Listener)(done('hello'))
    expect(replies).toEqual([])
    let cleaned = false
    shell.onClose(() => {
      cleaned = true
    })
    await shell.close()
    expect(shell.closed).toBe(true)
    expect(recording.unfollowed()).toBe(1)
    expect(cleaned).toBe(true)
  })

  it('counts a message the host refuses, thrown or rejected, and never throws', async () => {
    for (const refuse of ['throw', 'reject'] as const) {
      const recording = createRecordingHost(refuse)
      const { shell } = createShell({ host: recording.host })
      expect(() =>
        shell.offer({ session: 's', messages: [{ id: '1', speaker: { id: 'u', name: 'u' }, text: 'hi' }] }),
      ).not.toThrow()
      await new Promise((resolve) => setImmediate(resolve))
      expect(shell.status().messages_refused).toBe(1)
    }
  })

  it('shows its state, error, counts and sessions', () => {
    const { shell } = createShell({ counted: ['entered'], readNotice: () => 'the room is offline' })
    expect(shell.status()).toEqual({
      name: 'stream',
      kind: 'twitch',
      character: '',
      state: 'connecting',
      notice: 'the room is offline',
      sessions: ['twitch:stream:chan'],
      messages_in: 0,
      messages_out: 0,
      counted: { entered: 0 },
    })
    shell.markFailed('connection refused')
    shell.countIn()
    shell.countOut()
    shell.count('entered')
    expect(shell.status()).toMatchObject({
      state: 'failed',
      error: 'connection refused',
      messages_in: 1,
      messages_out: 1,
      counted: { entered: 1 },
    })
    shell.markReady()
    expect(shell.status().error).toBeUndefined()
  })
})
