/**
 * `${VAR}` is read from the environment in one place only: the config file's own text, once, as it
 * is read. Text from anyone else (an admin `PUT`, a card imported over HTTP or with the CLI) stays
 * literal through the engine's start and reload, up to the preview and the model request (checked
 * on the mock model server), while the file's own references keep working.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/characters/load-config.js'
import { type MockModelServer, makeCardV2, startMockModelServer } from '../../src/testing/index.js'
import { runCli } from '../support/run-cli.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'

const secretName = 'CHARPIPE_TRUST_ENV_SECRET'
const secretValue = 'env-secret-value-8f3a1c'
const reference = ['${', secretName, '}'].join('')

let model: MockModelServer
let server: TestServer | undefined

beforeAll(async () => {
  process.env[secretName] = secretValue
  model = await startMockModelServer()
})
afterAll(async () => {
  delete process.env[secretName]
  await model.close()
})
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  await server?.stop()
  server = undefined
  model.reset()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const request = (method: string, path: string, body?: unknown) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

/** The preview and the model request of one turn with `character`, as text. */
async function previewAndModelRequest(character?: string): Promise<{ preview: string; sent: string }> {
  const preview = await request('POST', '/api/preview', {
    text: 'hello',
    ...(character ? { character } : {}),
  })
  expect(preview.status).toBe(200)
  model.script({ text: 'Hi there.' })
  const chat = await request('POST', '/api/chat', {
    text: 'hello',
    session: 'env-check',
    ...(character ? { character } : {}),
  })
  expect(chat.status).toBe(200)
  await chat.text()
  expect(model.requests.length).toBeGreaterThan(0)
  return { preview: await preview.text(), sent: JSON.stringify(model.requests.at(-1)!.body) }
}

describe('${VAR} from a third party stays literal up to the model', () => {
  it('an admin PUT of character.persona: the preview and the model request hold the text, not the value', async () => {
    server = await startServerOverModel(model.url, ['character:', '  persona: "file persona"'])
    const persona = `I know ${reference}`
    expect((await request('PUT', '/api/config', { character: { persona } })).status).toBe(200)
    const { preview, sent } = await previewAndModelRequest()
    for (const text of [preview, sent]) {
      expect(text).not.toContain(secretValue)
      expect(text).toContain(persona)
    }
  })

  it("the file's own reference is still expanded (the operator's right)", async () => {
    server = await startServerOverModel(model.url, ['character:', `  persona: "The code is ${reference}"`])
    const { sent } = await previewAndModelRequest()
    expect(sent).toContain(`The code is ${secretValue}`)
    // A PUT of another field leaves the reference working, through the engine's reload.
    expect((await request('PUT', '/api/config', { character: { name: 'Ari' } })).status).toBe(200)
    expect((await previewAndModelRequest()).sent).toContain(`The code is ${secretValue}`)
  })

  it('a card imported over HTTP: its description never reaches the model expanded', async () => {
    server = await startServerOverModel(model.url)
    const card = makeCardV2({ name: 'Mallory', description: `I know ${reference}` })
    const imported = await fetch(`${server.url}/api/characters/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(card),
    })
    expect(imported.status).toBe(201)
    const { id } = (await imported.json()) as { id: string }
    const { preview, sent } = await previewAndModelRequest(id)
    for (const text of [preview, sent]) {
      expect(text).not.toContain(secretValue)
      expect(text).toContain(`I know ${reference}`)
    }
  })

  it('a card imported with `charpipe card import`: a server started on the file sends it literally', async () => {
    // The imported card lives in the characters folder, which outlives the first server's folder.
    const charactersDir = await mkdtemp(join(tmpdir(), 'charpipe-characters-'))
    cleanups.push(() => rm(charactersDir, { recursive: true, force: true }))
    server = await startServerOverModel(model.url, [`characters_dir: ${JSON.stringify(charactersDir)}`])
    const cardPath = join(server.folder, 'mallory.json')
    await writeFile(
      cardPath,
      JSON.stringify(makeCardV2({ name: 'Mallory', description: `I know ${reference}` })),
    )
    const result = await runCli(['card', 'import', cardPath, '--config', server.configPath])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe('mallory')
    const loaded = await loadConfig(server.configPath)
    expect(JSON.stringify(loaded.config.characters.mallory)).toContain(`I know ${reference}`)
    // A server started on that file (its own model address still read) sends the card as written.
    const text = await readFile(server.configPath, 'utf8')
    await server.stop()
    server = await startServerFromFile(text)
    const { preview, sent } = await previewAndModelRequest('mallory')
    for (const shown of [preview, sent]) {
      expect(shown).not.toContain(secretValue)
      expect(shown).toContain(`I know ${reference}`)
    }
  })
})

/** A server over the real engine whose config file is exactly `text` (the model address included). */
async function startServerFromFile(text: string): Promise<TestServer> {
  const { startTestServer } = await import('./start-test-server.js')
  const { createCharpipe } = await import('../../src/engine/index.js')
  return startTestServer({
    configText: text.replace(/sqlite_path: .*/, `sqlite_path: ${join('{folder}', 'charpipe.db')}`),
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
  })
}
