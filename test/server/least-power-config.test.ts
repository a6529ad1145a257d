/**
 * The admin API gives no more than it must: each test sends what an attacker would through the
 * public API and sees it refused, then the rightful change still works.
 */
import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  delete process.env.CHARPIPE_LEAST_POWER_SECRET
})

const configText = ['llm:', '  provider: deepseek', '  api_key: sk-stored-secret-1234567890', ''].join('\n')

const request = (method: string, path: string, body?: unknown) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })

const reference = (name: string) => ['${', name, '}'].join('')

describe('prototype keys in user JSON', () => {
  const pollutions = [
    '{"__proto__":{"enabled":false}}',
    '{"memory":{"__proto__":{"enabled":false}}}',
    '{"character":{"constructor":{"prototype":{"enabled":false}}}}',
    '{"llm":{"fallbacks":[{"prototype":{"enabled":false}}]}}',
  ]

  it.each(pollutions)(
    'PUT /api/config %s answers 400 naming the key, and nothing is polluted',
    async (body) => {
      server = await startTestServer({ configText })
      const before = await readFile(server.configPath, 'utf8')
      const response = await request('PUT', '/api/config', body)
      expect(response.status).toBe(400)
      const answer = await response.json()
      expect(answer.error.message).toMatch(/__proto__|constructor|prototype/)
      expect(({} as Record<string, unknown>).enabled).toBeUndefined()
      expect(await readFile(server.configPath, 'utf8')).toBe(before)
      // The server still answers and the rightful change still works.
      const ok = await request('PUT', '/api/config', { character: { persona: 'kind' } })
      expect(ok.status).toBe(200)
      expect((await ok.json()).character.persona).toBe('kind')
    },
  )

  it('POST /api/doctor, POST /api/memory and POST /api/chat refuse such keys with 400', async () => {
    server = await startTestServer({ configText })
    for (const [path, body] of [
      ['/api/doctor', '{"llm":{"__proto__":{"enabled":false}}}'],
      ['/api/memory', '{"text":"x","metadata":{"__proto__":{"enabled":false}}}'],
      ['/api/chat', '{"text":"hi","__proto__":{"enabled":false}}'],
    ] as const) {
      const response = await request('POST', path, body)
      expect(response.status, path).toBe(400)
      expect((await response.json()).error.message).toContain('__proto__')
    }
    expect(({} as Record<string, unknown>).enabled).toBeUndefined()
    const memory = await request('POST', '/api/memory', { text: 'likes tea', metadata: { source: 'test' } })
    expect(memory.status).toBe(201)
  })
})

describe('${VAR} in API input is literal', () => {
  it('PUT /api/config stores the text as written; GET shows it, not the environment', async () => {
    process.env.CHARPIPE_LEAST_POWER_SECRET = 'value-from-the-environment'
    server = await startTestServer({ configText })
    const text = `I know ${reference('CHARPIPE_LEAST_POWER_SECRET')}`
    const response = await request('PUT', '/api/config', { character: { persona: text } })
    expect(response.status).toBe(200)
    expect((await response.json()).character.persona).toBe(text)
    const shown = await (await request('GET', '/api/config')).text()
    expect(shown).not.toContain('value-from-the-environment')
    expect(server.charpipe.config.character.persona).toBe(text)
    // After a restart from the file it still reads as written.
    const file = await readFile(server.configPath, 'utf8')
    expect(file).not.toContain('value-from-the-environment')
    const { loadConfig } = await import('../../src/characters/load-config.js')
    expect((await loadConfig(server.configPath)).config.character.persona).toBe(text)
  })

  it('a reference written in the file survives a PUT that does not touch it, and is still expanded', async () => {
    process.env.CHARPIPE_LEAST_POWER_SECRET = 'file-persona'
    server = await startTestServer({
      configText: `character:\n  persona: ${reference('CHARPIPE_LEAST_POWER_SECRET')}\n`,
    })
    const masked = await (await request('GET', '/api/config')).json()
    expect(masked.character.persona).toBe('file-persona')
    const response = await request('PUT', '/api/config', {
      ...masked,
      character: { ...masked.character, name: 'Ari' },
    })
    expect(response.status).toBe(200)
    const file = await readFile(server.configPath, 'utf8')
    expect(file).toContain(`persona: ${reference('CHARPIPE_LEAST_POWER_SECRET')}`)
    expect(server.charpipe.config.character.persona).toBe('file-persona')
  })

  it('POST /api/doctor does not expand a reference in its body', async () => {
    process.env.CHARPIPE_LEAST_POWER_SECRET = 'doctor-secret-value'
    server = await startTestServer({ configText: '' })
    const response = await request('POST', '/api/doctor', {
      llm: { provider: 'mock', model: reference('CHARPIPE_LEAST_POWER_SECRET') },
    })
    const answer = await response.text()
    expect(answer).not.toContain('doctor-secret-value')
    expect(answer).toContain(reference('CHARPIPE_LEAST_POWER_SECRET'))
  })
})

describe('file-only settings', () => {
  it.each([
    [{ assets: { dirs: ['/'] } }, 'assets.dirs'],
    [{ storage: { sqlite_path: '/tmp/anywhere.db' } }, 'storage.sqlite_path'],
    [{ server: { port: 9999 } }, 'server.port'],
    [{ server: { host: '0.0.0.0' } }, 'server.host'],
  ])('PUT %j is refused naming %s', async (body, field) => {
    server = await startTestServer({ configText })
    const before = await readFile(server.configPath, 'utf8')
    const response = await request('PUT', '/api/config', body)
    expect(response.status).toBe(400)
    const answer = await response.json()
    expect(answer.error.code).toBe('invalid_config')
    expect(answer.error.issues.map((issue: { path: string }) => issue.path)).toContain(field)
    expect(answer.error.message).toContain('config file')
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
  })

  it('a full form sent back unchanged (file-only fields included) is accepted', async () => {
    server = await startTestServer({ configText: `${configText}assets:\n  dirs: ["{folder}"]\n` })
    const masked = await (await request('GET', '/api/config')).json()
    const response = await request('PUT', '/api/config', {
      ...masked,
      character: { ...masked.character, name: 'Mei' },
    })
    expect(response.status).toBe(200)
    expect((await response.json()).character.name).toBe('Mei')
  })
})

describe('outbound addresses set through the API', () => {
  const lookup = async (host: string) =>
    host === 'rebound.example'
      ? ['169.254.169.254']
      : host === 'models.example'
        ? ['10.1.2.3']
        : ['93.184.216.34']

  it.each([
    ['llm.base_url', { llm: { base_url: 'http://169.254.169.254/latest', api_key: '' } }],
    ['llm.base_url', { llm: { base_url: 'http://[fe80::1]:8080/v1', api_key: '' } }],
    ['llm.base_url', { llm: { base_url: 'http://metadata.google.internal/v1', api_key: '' } }],
    ['llm.base_url', { llm: { base_url: 'http://100.100.100.200/v1', api_key: '' } }],
    ['llm.base_url', { llm: { base_url: 'http://rebound.example/v1', api_key: '' } }],
    [
      'memory.embeddings.base_url',
      { memory: { embeddings: { base_url: 'http://169.254.1.1/v1', model: 'e' } } },
    ],
  ])('%s → %j is refused', async (field, body) => {
    server = await startTestServer({ configText, lookup })
    const response = await request('PUT', '/api/config', body)
    expect(response.status).toBe(400)
    const answer = await response.json()
    expect(answer.error.issues.map((issue: { path: string }) => issue.path)).toContain(field)
    expect(answer.error.message).toContain('metadata')
  })

  it('private and loopback addresses stay allowed', async () => {
    server = await startTestServer({ configText, lookup })
    for (const base_url of [
      'http://127.0.0.1:11434/v1',
      'http://192.168.1.20:8000/v1',
      'http://models.example/v1',
    ]) {
      const response = await request('PUT', '/api/config', {
        llm: { provider: 'custom', base_url, api_key: '' },
      })
      expect(response.status, base_url).toBe(200)
    }
  })

  it('the doctor refuses a metadata address before requesting it', async () => {
    server = await startTestServer({ configText, lookup })
    const response = await request('POST', '/api/doctor', {
      llm: { provider: 'custom', base_url: 'http://169.254.169.254/latest', api_key: '' },
    })
    const answer = await response.json()
    expect(answer.ok).toBe(false)
    expect(answer.checks).toHaveLength(1)
    expect(answer.checks[0]).toMatchObject({ name: 'config', ok: false, code: 'invalid_config' })
  })
})

describe('masking in GET /api/config and the log', () => {
  it('URL credentials and secret query values are shown as *** and survive a save', async () => {
    const text = [
      'llm:',
      '  provider: custom',
      '  base_url: https://alice:pa55word-xyz@models.example/v1?api_key=query-secret-1',
      'openclaw:',
      '  url: ws://gateway.example/?token=gateway-secret-7',
      '',
    ].join('\n')
    server = await startTestServer({ configText: text, captureAllLogs: true })
    const shown = await (await request('GET', '/api/config')).text()
    for (const secret of ['pa55word-xyz', 'query-secret-1', 'gateway-secret-7'])
      expect(shown).not.toContain(secret)
    expect(shown).toContain('https://alice:***@models.example/v1?api_key=***')
    const masked = JSON.parse(shown)
    const response = await request('PUT', '/api/config', {
      ...masked,
      character: { ...masked.character, name: 'Ivy' },
    })
    expect(response.status, await response.clone().text()).toBe(200)
    const file = await readFile(server.configPath, 'utf8')
    expect(file).toContain('https://alice:pa55word-xyz@models.example/v1?api_key=query-secret-1')
    expect(file).toContain('ws://gateway.example/?token=gateway-secret-7')
    expect(file).not.toContain('***')
    const log = server.logLines.join('\n')
    for (const secret of ['pa55word-xyz', 'query-secret-1', 'gateway-secret-7'])
      expect(log).not.toContain(secret)
  })
})
