/**
 * A connector's secrets never reach a log line, an error or its status, even when the remote side
 * echoes one back: the Bilibili cookie's values (SESSDATA raw and URL-decoded, bili_jct), the
 * OneBot access token, the Twitch chat token.
 */
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bilibiliConnectorSchema } from '../../src/config/schema.js'
import { createBilibiliConnector } from '../../src/connectors/bilibili/create-bilibili-connector.js'
import { createConnectorShell } from '../../src/connectors/create-connector-shell.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeConnectorHost } from './fake-connector-host.js'

const sessdata = 'a1b2c3d4%2C1767225600%2Cf00d*11'
const decodedSessdata = decodeURIComponent(sessdata)
const cookie = `SESSDATA=${sessdata}; bili_jct=csrf-secret-value; DedeUserID=555; buvid3=buvid-abc`
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function createLineLogger() {
  const lines: string[] = []
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    }),
  })
  return { logger, lines }
}

/** Bilibili's API as a remote that echoes the request's cookie in every error it answers. */
function createEchoingApi(mode: 'body' | 'network'): typeof fetch {
  return async (_input, init) => {
    const sent = new Headers(init?.headers).get('cookie') ?? ''
    // Only the SESSDATA pair: masking the whole header as one value would not hide it.
    if (mode === 'network') throw new Error(`socket hang up while sending ${sent.split(';')[0]}`)
    return new Response(
      JSON.stringify({ code: -400, message: `bad request: ${sent}; decoded ${decodeURIComponent(sent)}` }),
      { headers: { 'Content-Type': 'application/json' } },
    )
  }
}

describe('connector secrets', () => {
  it.each(['body', 'network'] as const)(
    'masks every cookie value a Bilibili API answer echoes (%s), in the status and the log',
    async (mode) => {
      const { logger, lines } = createLineLogger()
      const config = bilibiliConnectorSchema.parse({
        name: 'live',
        room_id: 21452505,
        cookie,
        api_url: 'http://127.0.0.1:9',
        url: 'ws://127.0.0.1:9/sub',
      })
      const connector = createBilibiliConnector({
        config,
        host: createFakeConnectorHost(),
        characterName: '小雪',
        logger,
        backoff: { initialMs: 10_000, maxMs: 10_000 },
        fetch: createEchoingApi(mode),
      })
      cleanups.push(() => connector.close())
      await vi.waitFor(() => expect(connector.status().state).toBe('failed'))
      const shown = JSON.stringify(connector.status()) + lines.join('')
      expect(connector.status().error).toContain('***')
      for (const secret of [sessdata, decodedSessdata, 'csrf-secret-value'])
        expect(shown).not.toContain(secret)
    },
  )

  it('masks configured secrets in warnings, errors and notices the shell writes', () => {
    const { logger, lines } = createLineLogger()
    const shell = createConnectorShell({
      kind: 'onebot',
      name: 'qq',
      character: '',
      host: createFakeConnectorHost(),
      logger,
      secrets: ['group-token-123'],
      linkName: 'the OneBot link',
      reachable: () => true,
      listSessions: () => [],
      readNotice: () => 'the implementation said group-token-123',
    })
    shell.markFailed('refused group-token-123')
    shell.refuse('bad_frame', 'a frame with group-token-123 in it')
    shell.log('warn', { reason: 'echo group-token-123' }, 'a line')
    shell.guard(() => {
      throw new Error('thrown with group-token-123')
    })()
    const shown = JSON.stringify(shell.status()) + lines.join('')
    expect(shown).toContain('***')
    expect(shown).not.toContain('group-token-123')
    expect(shell.status().malformed).toEqual({ bad_frame: 1, unreadable: 1 })
  })
})
