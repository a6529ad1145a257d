/**
 * The image describer against the mock model server: the OpenAI and Anthropic image formats arrive
 * as each API expects (asserted on the recorded request), the answer becomes one short line, and
 * the timeout, the caller's abort and an empty answer end with clear errors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'
import { maskSecrets } from '../config/mask-secrets.js'
import type { CharpipeConfigInput } from '../config/schema.js'
import { CharpipeError } from '../shared/errors.js'
import { readAttachmentTexts } from '../shared/language/index.js'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { createImageDescriberFromConfig } from './create-image-describer-from-config.js'
import { captureLogger, waitUntil } from './test-helpers.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const pngData =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
const png = { url: `data:image/png;base64,${pngData}`, mediaType: 'image/png' }

function describerFor(visionDescriber: NonNullable<CharpipeConfigInput['llm']>['vision_describer']) {
  const config = parseConfig({ llm: { max_retries: 0, vision_describer: visionDescriber } }).config
  const log = captureLogger()
  return { describer: createImageDescriberFromConfig(config, { logger: log.logger }), ...log, config }
}

async function failureOf(promise: Promise<unknown>): Promise<CharpipeError> {
  try {
    await promise
  } catch (error) {
    if (CharpipeError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a failure')
}

describe('image describer', () => {
  it('sends the prompt and the image in the OpenAI format and returns one line', async () => {
    server.script({ text: '一只橘猫\n趴在窗台上[晒太阳]', chunkSize: 3 })
    const { describer } = describerFor({
      provider: 'custom',
      base_url: `${server.url}/v1`,
      model: 'vision-model',
      api_key: 'sk-vision-secret-1234',
    })
    expect(await describer!.describe(png, {})).toBe('一只橘猫 趴在窗台上［晒太阳］')
    const request = server.requests[0]!
    expect(request.path).toBe('/v1/chat/completions')
    expect(request.headers.authorization).toBe('Bearer sk-vision-secret-1234')
    expect(request.body).toMatchObject({
      model: 'vision-model',
      stream: true,
      max_tokens: 300,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: readAttachmentTexts('zh').describerPrompt },
            { type: 'image_url', image_url: { url: png.url } },
          ],
        },
      ],
    })
  })

  it("asks in the character's language unless a prompt is configured", async () => {
    server.script({ text: 'A ginger cat on a windowsill.' })
    const { describer } = describerFor({ provider: 'custom', base_url: `${server.url}/v1` })
    expect(await describer!.describe(png, { language: 'en' })).toBe('A ginger cat on a windowsill.')
    const prompt = (server.requests[0]!.body as { messages: { content: { text?: string }[] }[] }).messages[0]!
      .content[0]!.text
    expect(prompt).toBe(
      'Describe this image in one or two short sentences in English: what is in it, what is happening, and any text it shows. Only describe it: no comments, no questions.',
    )
    expect(readAttachmentTexts('zh').describerPrompt).toBe(
      '请用一两句简短的中文描述这张图片：画面里有什么、在做什么、有没有文字。只写描述，不要评论，不要提问。',
    )
  })

  it('sends the image as a base64 block in the Anthropic format, with its own prompt in any language', async () => {
    server.script({ text: '一张白色的小图。' })
    const { describer } = describerFor({
      provider: 'anthropic',
      base_url: server.url,
      model: 'claude-vision',
      api_key: 'sk-ant-vision-0000',
      prompt: '描述这张图',
    })
    expect(await describer!.describe(png, { language: 'en' })).toBe('一张白色的小图。')
    const request = server.requests[0]!
    expect(request.path).toBe('/v1/messages')
    // The SDK decides how the key travels (`x-api-key` or a bearer header, by SDK version).
    expect(request.headers['x-api-key'] ?? request.headers.authorization).toContain('sk-ant-vision-0000')
    expect(request.body).toMatchObject({
      model: 'claude-vision',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '描述这张图' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngData } },
          ],
        },
      ],
    })
  })

  it('gives up at its own timeout and closes the request', async () => {
    server.script({ text: '太慢了', firstTokenDelayMs: 5000 })
    const { describer } = describerFor({ provider: 'custom', base_url: `${server.url}/v1`, timeout_ms: 200 })
    const failure = await failureOf(describer!.describe(png, {}))
    expect(failure.code).toBe('upstream_timeout')
    expect(failure.message).toMatch(/200 ms/)
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
  })

  it("stops with the caller's signal", async () => {
    server.script({ text: '太慢了', firstTokenDelayMs: 5000 })
    const { describer } = describerFor({ provider: 'custom', base_url: `${server.url}/v1` })
    const controller = new AbortController()
    const pending = describer!.describe(png, { signal: controller.signal })
    await waitUntil(() => server.requests.length === 1, 'the request arrived')
    controller.abort()
    expect((await failureOf(pending)).code).toBe('aborted')
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
  })

  it('fails when the model answers with no text', async () => {
    server.script({ text: '' })
    const { describer } = describerFor({ provider: 'custom', base_url: `${server.url}/v1` })
    expect((await failureOf(describer!.describe(png, {}))).message).toMatch(/no description/)
  })
})

describe('createImageDescriberFromConfig', () => {
  it('is undefined when no vision describer is configured', () => {
    const config = parseConfig({}).config
    expect(config.llm.vision_describer).toBeNull()
    expect(createImageDescriberFromConfig(config)).toBeUndefined()
  })

  it('refuses providers that cannot see images, naming the field', () => {
    for (const provider of ['openclaw', 'mock']) {
      const config = parseConfig({ llm: { vision_describer: { provider } } }).config
      expect(() => createImageDescriberFromConfig(config)).toThrow(/llm\.vision_describer\.provider/)
    }
  })

  it('masks the api_key wherever the config is shown, and keeps it out of logs', async () => {
    server.script({ status: 401, body: { error: { message: 'bad key sk-vision-secret-9876' } } })
    const { describer, config, lines } = describerFor({
      provider: 'custom',
      base_url: `${server.url}/v1`,
      api_key: 'sk-vision-secret-9876',
    })
    expect(maskSecrets(config).llm.vision_describer?.api_key).toBe('***')
    const failure = await failureOf(describer!.describe(png, {}))
    expect(failure.code).toBe('upstream_http')
    expect(failure.message).not.toContain('sk-vision-secret-9876')
    expect(JSON.stringify(lines)).not.toContain('sk-vision-secret-9876')
  })
})

describe('which describers get image bytes instead of URLs', () => {
  it('asks for bytes only where the provider cannot take an image URL (ollama)', () => {
    const describerFor = (provider: string) =>
      createImageDescriberFromConfig(
        parseConfig({ llm: { vision_describer: { provider, base_url: 'http://127.0.0.1:9/v1' } } }).config,
      )
    expect(describerFor('ollama')?.needsImageBytes).toBe(true)
    expect(describerFor('openai')?.needsImageBytes).toBe(false)
    expect(describerFor('my-vision-box')?.needsImageBytes).toBe(false)
  })
})
