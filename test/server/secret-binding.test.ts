/**
 * A stored key stays with its host, end to end over the real engine: a change that points the model
 * (or the connection test) at another host while the key stays `***` is refused and the other host
 * never sees the key; with the key given again the change applies and only the new key travels.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

const storedKey = 'sk-stored-key-0123456789'
const newKey = 'sk-new-key-for-the-new-host'
let home: MockModelServer
let elsewhere: MockModelServer
let server: TestServer

beforeAll(async () => {
  home = await startMockModelServer()
  elsewhere = await startMockModelServer()
  server = await startTestServer({
    configText: [
      'llm:',
      '  provider: custom',
      `  base_url: ${home.url}/v1`,
      `  api_key: ${storedKey}`,
      '  model: mock-model',
      '  max_retries: 0',
      'storage:',
      `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
    ].join('\n'),
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
  })
})

afterAll(async () => {
  await server?.stop()
  await home.close()
  await elsewhere.close()
})

const send = (method: string, path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const authorizationsSeenBy = (model: MockModelServer) =>
  model.requests.map((request) => String(request.headers.authorization ?? ''))

const runTurn = async (text: string) => {
  const client = await openTestSocket(`${server.url}/ws`)
  client.send({ type: 'user_input', session: 'binding', text })
  const events = await client.waitForTurn('binding')
  await client.close()
  return events.at(-1)!
}

describe('a stored key stays with its host', () => {
  it('refuses to move llm.base_url with the key left as *** (or left out), and sends the key nowhere', async () => {
    for (const llm of [
      { base_url: `${elsewhere.url}/v1`, api_key: '***' },
      { base_url: `${elsewhere.url}/v1` },
    ]) {
      const response = await send('PUT', '/api/config', { llm })
      expect(response.status).toBe(400)
      const body = (await response.json()) as {
        error: { code: string; issues: { path: string; message: string }[] }
      }
      expect(body.error.code).toBe('invalid_config')
      expect(body.error.issues).toEqual([
        {
          path: 'llm.api_key',
          message: expect.stringMatching(/^re-enter the key: the base_url host changed/),
        },
      ])
      expect(JSON.stringify(body)).not.toContain(storedKey)
    }
    const doctor = await send('POST', '/api/doctor', {
      llm: { base_url: `${elsewhere.url}/v1`, api_key: '***' },
    })
    expect(doctor.status).toBe(400)
    expect(((await doctor.json()) as { error: { issues: { path: string }[] } }).error.issues[0]!.path).toBe(
      'llm.api_key',
    )

    expect(await runTurn('还在原来的地方吗')).toMatchObject({ type: 'llm_done' })
    expect(elsewhere.requests).toHaveLength(0)
    expect(authorizationsSeenBy(home)).toEqual([`Bearer ${storedKey}`])
    expect(server.server.configManager.current().llm.base_url).toBe(`${home.url}/v1`)
  })

  it('moves with a key given again, and only that key reaches the new host', async () => {
    const doctor = await send('POST', '/api/doctor', {
      llm: { base_url: `${elsewhere.url}/v1`, api_key: newKey },
    })
    expect(doctor.status).toBe(200)
    await doctor.text()
    const response = await send('PUT', '/api/config', {
      llm: { base_url: `${elsewhere.url}/v1`, api_key: newKey },
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { llm: { api_key: string } }).llm.api_key).toBe('***')
    expect(await runTurn('换到新地方了')).toMatchObject({ type: 'llm_done' })
    const seen = authorizationsSeenBy(elsewhere)
    expect(seen.length).toBeGreaterThan(0)
    expect(new Set(seen)).toEqual(new Set([`Bearer ${newKey}`]))
    expect(JSON.stringify(elsewhere.requests)).not.toContain(storedKey)
  })
})
