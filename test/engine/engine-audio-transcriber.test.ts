/**
 * Voice messages end to end: a WAV made here (a RIFF header and a sine wave) is an attachment; the
 * engine sends it to a fake OpenAI-compatible `/v1/audio/transcriptions` endpoint (a local HTTP
 * server that reads the multipart upload) and the chat model, the mock model server, receives
 * `[语音:转写]`. Transcripts are cached by content; a failure is a placeholder, never a failed turn.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import { maxAnswerBytes } from '../../src/providers/create-node-fetch.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import type { MockModelServer } from '../../src/testing/index.js'
import { startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

/** 16-bit mono PCM WAV of a sine wave. */
function makeWav(frequency: number, seconds = 0.25, sampleRate = 8000): Buffer {
  const samples = Math.floor(seconds * sampleRate)
  const data = Buffer.alloc(samples * 2)
  for (let index = 0; index < samples; index++) {
    data.writeInt16LE(
      Math.round(Math.sin((2 * Math.PI * frequency * index) / sampleRate) * 12_000),
      index * 2,
    )
  }
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVE', 8, 'ascii')
  header.write('fmt ', 12, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(sampleRate, 24)
  header.writeUInt32LE(sampleRate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}

interface Upload {
  path: string
  authorization: string | undefined
  model: string | undefined
  language: string | undefined
  fileName: string | undefined
  fileType: string | undefined
  fileBytes: Buffer
}

/** A fake transcription endpoint: parses the multipart body with the platform's own parser. */
let uploads: Upload[] = []
let answer: (upload: Upload) => { status: number; body: unknown; gzipped?: Buffer } = () => ({
  status: 200,
  body: { text: '' },
})
let transcription: Server
let transcriptionUrl: string
let model: MockModelServer
let folder: string

beforeAll(async () => {
  model = await startMockModelServer()
  transcription = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const form = await new Response(Buffer.concat(chunks), {
      headers: { 'content-type': request.headers['content-type'] ?? '' },
    }).formData()
    const file = form.get('file') as File | null
    const upload: Upload = {
      path: request.url ?? '',
      authorization: request.headers.authorization,
      model: form.get('model')?.toString(),
      language: form.get('language')?.toString(),
      fileName: file?.name,
      fileType: file?.type,
      fileBytes: Buffer.from(file ? await file.arrayBuffer() : new ArrayBuffer(0)),
    }
    uploads.push(upload)
    const reply = answer(upload)
    response.writeHead(reply.status, {
      'content-type': 'application/json',
      ...(reply.gzipped ? { 'content-encoding': 'gzip' } : {}),
    })
    response.end(reply.gzipped ?? JSON.stringify(reply.body))
  })
  await new Promise<void>((resolve) => transcription.listen(0, '127.0.0.1', resolve))
  transcriptionUrl = `http://127.0.0.1:${(transcription.address() as AddressInfo).port}/v1`
})
afterAll(async () => {
  await model.close()
  await new Promise((resolve) => transcription.close(resolve))
})
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'charpipe-audio-'))
  uploads = []
  model.reset()
})
afterEach(() => rmSync(folder, { recursive: true, force: true }))

function configWith(llm: NonNullable<CharpipeConfigInput['llm']> = {}) {
  return makeConfig({
    llm: {
      provider: 'custom',
      base_url: `${model.url}/v1`,
      model: 'chat-model',
      max_retries: 0,
      transcriber: {
        provider: 'custom',
        base_url: transcriptionUrl,
        model: 'whisper-test',
        api_key: 'sk-stt',
        language: 'zh',
      },
      ...llm,
    },
    character: { reply_format: 'plain' },
    assets: { dirs: [folder] },
  })
}

type Body = { messages: { role: string; content: unknown }[] }
const lastUser = (index: number) =>
  JSON.stringify(
    (model.requests[index]!.body as Body).messages.filter((message) => message.role === 'user').at(-1),
  )

describe('voice messages (llm.transcriber)', () => {
  it('sends the WAV to /v1/audio/transcriptions and the transcript to the chat model as [语音:…]', async () => {
    const wav = makeWav(440)
    writeFileSync(join(folder, 'voice.wav'), wav)
    answer = () => ({ status: 200, body: { text: '今天晚上吃什么' } })
    model.script({ text: '吃面吧。' })
    const charpipe = await createCharpipe(configWith())
    const events = await collectEvents(charpipe.generate({ text: '听听', files: ['voice.wav'] }))
    await charpipe.close()
    expect(doneOf(events).text).toBe('吃面吧。')
    expect(uploads).toHaveLength(1)
    expect(uploads[0]).toMatchObject({
      path: '/v1/audio/transcriptions',
      authorization: 'Bearer sk-stt',
      model: 'whisper-test',
      language: 'zh',
      fileName: 'voice.wav',
      fileType: 'audio/wav',
    })
    expect(uploads[0]!.fileBytes.equals(wav)).toBe(true)
    expect(lastUser(0)).toContain('[语音:今天晚上吃什么]')
    expect(lastUser(0)).not.toContain('RIFF')
  })

  it('takes a recording inline as a data: URI in files, never putting the URI in the prompt', async () => {
    const wav = makeWav(880)
    const uri = `data:audio/wav;base64,${wav.toString('base64')}`
    answer = () => ({ status: 200, body: { text: '内联语音' } })
    model.script([{ text: '好。' }, { text: '好。' }])
    const charpipe = await createCharpipe(configWith())
    await collectEvents(charpipe.generate({ text: '', files: [uri] }))
    await collectEvents(charpipe.generate({ text: '', files: ['data:text/plain;base64,aGVsbG8='] }))
    await charpipe.close()
    expect(uploads).toHaveLength(1)
    expect(uploads[0]!.fileName).toBe('recording.wav')
    expect(uploads[0]!.fileBytes.equals(wav)).toBe(true)
    expect(lastUser(0)).toContain('[语音:内联语音]')
    expect(JSON.stringify(model.requests[0]!.body)).not.toContain(wav.toString('base64').slice(0, 40))
    expect(lastUser(1)).toContain('[文件:data:…（无法读取）]')
  })

  it('transcribes a recording once: the same bytes again come from the cache', async () => {
    const wav = makeWav(523)
    writeFileSync(join(folder, 'a.wav'), wav)
    writeFileSync(join(folder, 'same-bytes.wav'), wav)
    answer = () => ({ status: 200, body: { text: '你好' } })
    model.script([{ text: '嗯。' }, { text: '嗯。' }])
    const charpipe = await createCharpipe(configWith())
    await collectEvents(charpipe.generate({ session: 'c1', text: '', files: ['a.wav'] }))
    await collectEvents(charpipe.generate({ session: 'c2', text: '', files: ['same-bytes.wav'] }))
    await charpipe.close()
    expect(uploads).toHaveLength(1)
    expect(lastUser(1)).toContain('[语音:你好]')
  })

  it('a failed transcription is a placeholder and a log line; the turn goes on', async () => {
    writeFileSync(join(folder, 'broken.wav'), makeWav(700))
    answer = () => ({ status: 500, body: { error: { message: 'stt down' } } })
    model.script({ text: '没听清。' })
    const charpipe = await createCharpipe(configWith())
    const events = await collectEvents(charpipe.generate({ text: '听', files: ['broken.wav'] }))
    const preview = await charpipe.inspect.preview({ text: '听', files: ['broken.wav'] })
    await charpipe.close()
    expect(doneOf(events).text).toBe('没听清。')
    expect(lastUser(0)).toContain('[语音:转写失败]')
    expect(preview.logs.map((log) => log.message).join('\n')).toMatch(/transcribing "broken.wav" failed/)
    expect(JSON.stringify(preview.logs)).not.toContain('sk-stt')
  })

  it('an answer that inflates past the bound is a failed transcription that says so', async () => {
    writeFileSync(join(folder, 'bomb.wav'), makeWav(900))
    // About 64 KB on the wire, more than 64 MiB once decompressed.
    const bomb = gzipSync(`{"text":"${' '.repeat(maxAnswerBytes + 1024)}"}`)
    answer = () => ({ status: 200, body: null, gzipped: bomb })
    model.script({ text: '没听清。' })
    const charpipe = await createCharpipe(configWith())
    const events = await collectEvents(charpipe.generate({ text: '听', files: ['bomb.wav'] }))
    const preview = await charpipe.inspect.preview({ text: '听', files: ['bomb.wav'] })
    await charpipe.close()
    expect(doneOf(events).text).toBe('没听清。')
    expect(lastUser(0)).toContain('[语音:转写失败]')
    expect(preview.logs.map((log) => log.message).join('\n')).toMatch(
      new RegExp(`transcribing "bomb.wav" failed: .*passed ${maxAnswerBytes} bytes`),
    )
  })

  it('an answer whose text is not a string is a failed transcription that says so', async () => {
    writeFileSync(join(folder, 'odd.wav'), makeWav(800))
    answer = () => ({ status: 200, body: { text: { words: ['你好'] } } })
    model.script({ text: '没听清。' })
    const charpipe = await createCharpipe(configWith())
    const events = await collectEvents(charpipe.generate({ text: '听', files: ['odd.wav'] }))
    const preview = await charpipe.inspect.preview({ text: '听', files: ['odd.wav'] })
    await charpipe.close()
    expect(doneOf(events).text).toBe('没听清。')
    expect(lastUser(0)).toContain('[语音:转写失败]')
    expect(preview.logs.map((log) => log.message).join('\n')).toMatch(
      /transcribing "odd.wav" failed: .*the transcription answer has no text field that is a string/,
    )
  })

  it('without llm.transcriber the recording is a placeholder, not bytes', async () => {
    writeFileSync(join(folder, 'voice.wav'), makeWav(300))
    model.script({ text: '好。' })
    const charpipe = await createCharpipe(configWith({ transcriber: null }))
    await collectEvents(charpipe.generate({ text: '听', files: ['voice.wav'] }))
    await charpipe.close()
    expect(uploads).toHaveLength(0)
    expect(lastUser(0)).toContain('[语音:未配置语音转写]')
  })

  it('refuses a transcriber whose provider has no transcription endpoint', async () => {
    await expect(createCharpipe(configWith({ transcriber: { provider: 'anthropic' } }))).rejects.toThrow(
      /llm\.transcriber/,
    )
  })
})
