import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makeYamlAliasBomb } from '../support/yaml-alias-bomb.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  delete process.env.CHARPIPE_TEST_KEY
})

const configText = `# The character's brain
llm:
  provider: deepseek   # cheap and good
  api_key: sk-stored-secret-1234567890
  temperature: 0.7
character:
  # who she is
  name: 小雪
memory:
  enabled: true
`

const putConfig = (body: unknown) =>
  fetch(`${server!.url}/api/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const envReference = ['${', 'CHARPIPE_TEST_KEY}'].join('')

describe('GET/PUT /api/config', () => {
  it('a null removes a field (JSON Merge Patch), also a default-only emotion alias', async () => {
    server = await startTestServer({ configText })
    const response = await putConfig({
      llm: { temperature: null },
      character: { emotion_aliases: { shy: null } },
    })
    expect(response.status).toBe(200)
    const answer = await response.json()
    expect(answer.llm.temperature).toBe(0.8)
    expect(answer.character.emotion_aliases.shy).toBeUndefined()
    expect(answer.character.emotion_aliases.happy).toBe('开心')
    const file = await readFile(server.configPath, 'utf8')
    expect(file).not.toContain('temperature')
    expect(file).toContain('# cheap and good')
  })

  it('shows the config with secrets masked', async () => {
    server = await startTestServer({ configText })
    const config = await (await fetch(`${server.url}/api/config`)).json()
    expect(config.llm).toMatchObject({ provider: 'deepseek', api_key: '***', temperature: 0.7 })
    expect(config.character.name).toBe('小雪')
    expect(JSON.stringify(config)).not.toContain('sk-stored-secret')
  })

  it('applies a valid partial change: written to the file with its comments, applied, answered masked', async () => {
    server = await startTestServer({ configText })
    const response = await putConfig({ character: { persona: '温柔的猫娘' }, llm: { temperature: 0.3 } })
    expect(response.status).toBe(200)
    const answer = await response.json()
    expect(answer.character).toMatchObject({ name: '小雪', persona: '温柔的猫娘' })
    expect(answer.llm.api_key).toBe('***')
    const file = await readFile(server.configPath, 'utf8')
    expect(file).toContain("# The character's brain")
    expect(file).toContain('# cheap and good')
    expect(file).toContain('# who she is')
    expect(file).toContain('temperature: 0.3')
    expect(file).toContain('persona: 温柔的猫娘')
    expect(file).toContain('api_key: sk-stored-secret-1234567890')
    expect(server.fake!.reloads.at(-1)!.character.persona).toBe('温柔的猫娘')
    expect(server.charpipe.config.llm.temperature).toBe(0.3)
  })

  it('keeps the stored secret when the body says "***", and a full masked config round-trips without changes', async () => {
    server = await startTestServer({ configText })
    const masked = await (await fetch(`${server.url}/api/config`)).json()
    const before = await readFile(server.configPath, 'utf8')
    const response = await putConfig(masked)
    expect(response.status).toBe(200)
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
    expect(server.fake!.reloads.at(-1)!.llm.api_key).toBe('sk-stored-secret-1234567890')
    await putConfig({ llm: { api_key: '***', model: 'deepseek-reasoner' } })
    const file = await readFile(server.configPath, 'utf8')
    expect(file).toContain('api_key: sk-stored-secret-1234567890')
    expect(file).toContain('model: deepseek-reasoner')
  })

  it('keeps ENV references in the file as references', async () => {
    process.env.CHARPIPE_TEST_KEY = 'sk-from-environment-abcdef'
    server = await startTestServer({
      configText: `llm:\n  provider: openai\n  api_key: ${envReference}\n`,
    })
    expect(server.charpipe.config.llm.api_key).toBe('sk-from-environment-abcdef')
    const masked = await (await fetch(`${server.url}/api/config`)).json()
    await putConfig({ ...masked, character: { ...masked.character, name: '阿狸' } })
    const file = await readFile(server.configPath, 'utf8')
    expect(file).toContain(`api_key: ${envReference}`)
    expect(file).toContain('name: 阿狸')
    expect(file).not.toContain('sk-from-environment')
    expect(server.charpipe.config.llm.api_key).toBe('sk-from-environment-abcdef')
  })

  it('rejects an invalid change with invalid_config issues by path and changes nothing', async () => {
    server = await startTestServer({ configText })
    const reloadsBefore = server.fake!.reloads.length
    const response = await putConfig({
      llm: { temperature: 5, colour: 'red' },
      character: { reply_format: 'xml' },
    })
    expect(response.status).toBe(400)
    const answer = (await response.json()) as {
      error: { code: string; issues: { path: string; message: string }[] }
    }
    expect(answer.error.code).toBe('invalid_config')
    const paths = answer.error.issues.map((issue) => issue.path)
    expect(paths).toEqual(expect.arrayContaining(['llm.temperature', 'llm.colour', 'character.reply_format']))
    expect(await readFile(server.configPath, 'utf8')).toBe(server.configText)
    expect(server.fake!.reloads.length).toBe(reloadsBefore)
    expect(server.charpipe.config.llm.temperature).toBe(0.7)
  })

  it('rejects a body that is not an object, and unknown processors through the pipeline check', async () => {
    server = await startTestServer({ configText })
    const notObject = await putConfig([1, 2])
    expect(notObject.status).toBe(400)
    expect(((await notObject.json()) as { error: { code: string } }).error.code).toBe('bad_request')
    const unknownProcessor = await putConfig({
      pipeline: { processors: { 'no-such-processor': { enabled: true } } },
    })
    expect(unknownProcessor.status).toBe(400)
    const answer = (await unknownProcessor.json()) as { error: { issues: { path: string }[] } }
    expect(answer.error.issues[0]!.path).toBe('pipeline.processors.no-such-processor')
  })

  it('switches the provider for the next turn and keeps the history', async () => {
    server = await startTestServer({ configText: 'llm:\n  provider: mock\n' })
    const client = await openTestSocket(`${server.url}/ws`, server.headers)
    client.send({ type: 'user_input', session: 'switch', text: 'before' })
    const first = await client.waitForTurn('switch')
    expect(first.at(-1)!.text).toContain('[mock]')
    const response = await putConfig({ llm: { provider: 'ollama' } })
    expect(response.status).toBe(200)
    const from = client.frames.length
    client.send({ type: 'user_input', session: 'switch', text: 'after' })
    const second = await client.waitForTurn('switch', from)
    expect(second.at(-1)!.text).toContain('[ollama]')
    expect(second.at(-1)!.text).toContain('第2轮')
    const history = await (await fetch(`${server.url}/api/sessions/switch/messages`)).json()
    expect(history.messages.map((message: { content: string }) => message.content)).toContain('before')
    await client.close()
  })

  it('creates the file when none existed', async () => {
    server = await startTestServer({ configFile: false })
    const response = await putConfig({ character: { name: '新角色' } })
    expect(response.status).toBe(200)
    expect(await readFile(server.configPath, 'utf8')).toContain('name: 新角色')
  })

  it('picks up hand edits of the file, and keeps the old config when the edit is invalid', async () => {
    server = await startTestServer({ configText })
    await writeFile(server.configPath, configText.replace('name: 小雪', 'name: 小月'))
    await expect.poll(() => server!.charpipe.config.character.name, { timeout: 5000 }).toBe('小月')
    await writeFile(server.configPath, configText.replace('temperature: 0.7', 'temperature: hot'))
    await expect
      .poll(
        () => server!.logLines.some((line) => line.includes('not valid') && line.includes('llm.temperature')),
        {
          timeout: 5000,
        },
      )
      .toBe(true)
    expect(server.charpipe.config.character.name).toBe('小月')
    expect(server.charpipe.config.llm.temperature).toBe(0.7)
  })
})

describe('GET /api/config/status and a file made invalid by hand', () => {
  const readStatus = async () => (await fetch(`${server!.url}/api/config/status`)).json()

  it('names the file; the last good config stays; a save names the file, the field and the problem', async () => {
    server = await startTestServer({ configText })
    expect(await readStatus()).toEqual({
      path: server.configPath,
      source: 'file',
      file_error: null,
      warnings: [],
    })

    const broken = configText.replace('name: 小雪', 'name: 小雪\n  reply_format: jsonn')
    await writeFile(server.configPath, broken)
    await expect.poll(async () => (await readStatus()).file_error, { timeout: 5000 }).not.toBeNull()
    const status = await readStatus()
    expect(status.file_error.message).toContain(`${server.configPath} is not valid`)
    expect(status.file_error.issues).toEqual([
      {
        path: 'character.reply_format',
        message: '"jsonn" is not one of json, prefix, auto, plain (did you mean `json`?)',
      },
    ])
    expect(server.charpipe.config.character.reply_format).toBe('auto')

    // The page sends its form back (reply_format shown as the running "auto") with one change.
    const masked = await (await fetch(`${server.url}/api/config`)).json()
    const refused = await putConfig({ ...masked, character: { ...masked.character, persona: '新的' } })
    expect(refused.status).toBe(400)
    const { error } = await refused.json()
    expect(error.code).toBe('invalid_config')
    expect(error.message).toContain(`${server.configPath} is not valid as it is on disk`)
    expect(error.issues).toEqual([
      {
        path: 'character.reply_format',
        message: `in ${server.configPath}: "jsonn" is not one of json, prefix, auto, plain (did you mean \`json\`?)`,
      },
    ])
    expect(await readFile(server.configPath, 'utf8')).toBe(broken)

    // A save that sets the faulty field mends the file.
    const mended = await putConfig({ character: { reply_format: 'json', persona: '新的' } })
    expect(mended.status).toBe(200)
    expect(await readStatus()).toEqual({
      path: server.configPath,
      source: 'file',
      file_error: null,
      warnings: [],
    })
    expect(await readFile(server.configPath, 'utf8')).toContain('reply_format: json\n')
  })

  it('lists a card of the characters folder that was skipped, until the file is gone', async () => {
    const charactersDir = await mkdtemp(join(tmpdir(), 'charpipe-characters-'))
    try {
      await writeFile(join(charactersDir, 'broken.json'), '{ "spec": "chara_card_v2", "data": ')
      server = await startTestServer({
        configText: `${configText}characters_dir: ${JSON.stringify(charactersDir)}\n`,
      })
      const { warnings } = await readStatus()
      expect(warnings).toEqual([
        { path: 'characters_dir: broken.json', message: expect.stringMatching(/^skipped: /) },
      ])
      // The running config still serves: the card was set aside, not the config.
      expect(server.charpipe.config.character.name).toBe('小雪')

      await rm(join(charactersDir, 'broken.json'))
      await writeFile(server.configPath, `${await readFile(server.configPath, 'utf8')}# edited\n`)
      await expect.poll(async () => (await readStatus()).warnings, { timeout: 5000 }).toEqual([])
    } finally {
      await rm(charactersDir, { recursive: true, force: true })
    }
  })

  it("a YAML syntax error is the file's problem, with its line", async () => {
    server = await startTestServer({ configText })
    await writeFile(server.configPath, `${configText}character: [unclosed\n`)
    await expect.poll(async () => (await readStatus()).file_error, { timeout: 5000 }).not.toBeNull()
    expect((await readStatus()).file_error.issues[0].path).toMatch(/^line \d+, column \d+$/)
    const refused = await putConfig({ character: { persona: '新的' } })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.message).toContain(`${server.configPath} is not valid YAML`)
  })

  // A cyclic alias made an object that every walk of the config followed until the heap ran out.
  it("a cyclic alias or an alias bomb is the file's problem; the server stays up on its last config", async () => {
    server = await startTestServer({ configText })
    await writeFile(server.configPath, `${configText}extra: &loop\n  again: *loop\n`)
    await expect.poll(async () => (await readStatus()).file_error, { timeout: 5000 }).not.toBeNull()
    expect((await readStatus()).file_error.issues[0]).toMatchObject({
      path: expect.stringMatching(/^line \d+, column \d+$/),
      message: expect.stringContaining('*loop is inside the node it names'),
    })
    await writeFile(server.configPath, `${configText}${makeYamlAliasBomb()}`)
    await expect
      .poll(async () => JSON.stringify((await readStatus()).file_error), { timeout: 5000 })
      .toContain('Excessive alias count')
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    expect(server.charpipe.config.character.name).toBe('小雪')
  })

  it('says the defaults run when there is no file, until a save creates it', async () => {
    server = await startTestServer({ configFile: false })
    expect(await readStatus()).toEqual({
      path: server.configPath,
      source: 'defaults',
      file_error: null,
      warnings: [],
    })
    expect((await putConfig({ character: { name: '新角色' } })).status).toBe(200)
    expect((await readStatus()).source).toBe('file')
  })
})

describe('PUT /api/config when the product cannot apply it', () => {
  it('answers the error and puts the file back as it was', async () => {
    server = await startTestServer({ configText })
    const fake = server.fake!
    const reload = fake.reload
    fake.reload = async () => {
      throw new Error('cannot open the new store')
    }
    const response = await putConfig({ character: { name: '失败' } })
    expect(response.status).toBe(500)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('internal')
    expect(await readFile(server.configPath, 'utf8')).toBe(server.configText)
    expect(server.charpipe.config.character.name).toBe('小雪')
    expect((await (await fetch(`${server.url}/api/config`)).json()).character.name).toBe('小雪')
    fake.reload = reload
  })
})
