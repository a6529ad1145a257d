/**
 * The texts charpipe writes around a character's words besides the system prompt, for an English
 * and a Chinese character side by side on one engine: attachment placeholders (images, voice
 * messages, files), the image describer's language, the group chat's frame, the fact-extraction
 * request and the idle turn's instruction. Each is checked in what the model is sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import type { PreviewResult } from '../../src/context/types.js'
import { type Charpipe, createCharpipe } from '../../src/engine/index.js'
import type { ImageDescriber } from '../../src/index.js'
import type { Language } from '../../src/shared/language/index.js'
import { messageText } from '../../src/shared/messages.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createFakeProvider, createManualClock } from '../../src/testing/index.js'
import { collectEvents } from '../../src/testing/turn-events.js'
import { createTimedProvider, lastUserText } from '../audience/timed-provider.js'

let charpipe: Charpipe | undefined
let folder: string
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'charpipe-language-'))
  writeFileSync(join(folder, 'notes.txt'), 'Buy milk.')
  writeFileSync(join(folder, 'blob.bin'), Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]))
})
afterAll(() => rmSync(folder, { recursive: true, force: true }))
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

const png =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** A WAV header and a few silent samples: a recording by its bytes. */
function wavDataUri(samples = 16): string {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + samples, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(8000, 24)
  header.writeUInt32LE(16_000, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(samples, 40)
  return `data:audio/wav;base64,${Buffer.concat([header, Buffer.alloc(samples)]).toString('base64')}`
}

/** The default character speaks Chinese, `mira` English. */
function config(overrides: CharpipeConfigInput = {}) {
  return makeConfig({
    character: { name: '小助手', persona: '一个乐于助人的小助手。', reply_format: 'plain' },
    characters: {
      mira: {
        name: 'Mira',
        persona: 'A cheerful guide who knows every road of Eldoria.',
        reply_format: 'plain',
      },
    },
    ...overrides,
    llm: { provider: 'mock', vision: false, ...overrides.llm },
    assets: { dirs: [folder], ...overrides.assets },
  })
}

const lastUserOf = (preview: PreviewResult) =>
  messageText(preview.messages.filter((message) => message.role === 'user').at(-1) as never)

async function previewBoth(input: Record<string, unknown>) {
  const english = await charpipe!.inspect.preview({
    session: 'en',
    character: 'mira',
    text: 'Look.',
    ...input,
  })
  const chinese = await charpipe!.inspect.preview({ session: 'zh', text: '看。', ...input })
  return { english: lastUserOf(english), chinese: lastUserOf(chinese) }
}

describe("attachment placeholders in the character's language", () => {
  it('says so when the model cannot see an image and nothing describes it', async () => {
    charpipe = await createCharpipe(config())
    const { english, chinese } = await previewBoth({ images: [png] })
    expect(english).toContain(
      '[Image: the current model cannot see images, and no image describer is configured]',
    )
    expect(chinese).toContain('[图片:当前模型看不到图片，且未配置图片描述]')
    const replied = await previewBoth({ replyImages: [png] })
    expect(replied.english).toContain('[Replied image: the current model cannot see images')
    expect(replied.chinese).toContain('[回复图片:当前模型看不到图片')
  })

  it("leaves the asset resolver's placeholder when image description is off", async () => {
    charpipe = await createCharpipe(
      config({ pipeline: { processors: { 'attachment-text': { describe_images: false } } } }),
    )
    const { english, chinese } = await previewBoth({ images: [png] })
    expect(english).toContain('[Image: the current model cannot see images]')
    expect(chinese).toContain('[图片:当前模型看不到图片]')
  })

  it("asks the describer in the character's language and frames its description in it", async () => {
    const asked: (Language | undefined)[] = []
    const describer: ImageDescriber = {
      async describe(_image, options) {
        asked.push(options.language)
        return options.language === 'en' ? 'a ginger cat' : '一只橘猫'
      },
    }
    charpipe = await createCharpipe(config(), { parts: { createImageDescriber: () => describer } })
    const { english, chinese } = await previewBoth({ images: [png] })
    expect(english).toContain('[Image: a ginger cat]')
    expect(chinese).toContain('[图片:一只橘猫]')
    // The same image is described once per language: the Chinese description is not reused.
    expect(asked).toEqual(['en', 'zh'])
  })

  it('writes a voice message that could not be transcribed', async () => {
    charpipe = await createCharpipe(config())
    const { english, chinese } = await previewBoth({ files: [wavDataUri()] })
    expect(english).toContain('[Voice: no speech transcription is configured]')
    expect(chinese).toContain('[语音:未配置语音转写]')
  })

  it('frames a text file read into the message', async () => {
    charpipe = await createCharpipe(config())
    const { english, chinese } = await previewBoth({ files: [join(folder, 'notes.txt')] })
    expect(english).toMatch(/\[File: [^\]]*notes\.txt\]\nBuy milk\.\n\[\/File\]/)
    expect(chinese).toMatch(/\[文件:[^\]]*notes\.txt\]\nBuy milk\.\n\[\/文件\]/)
  })
})

describe('every attachment placeholder, English beside Chinese', () => {
  const describer: ImageDescriber = {
    async describe(image) {
      if (image.url.startsWith('data:image/png')) throw new Error('the vision model is down')
      return 'never used'
    },
  }
  const transcriber = (transcript: string | Error) => ({
    async transcribe() {
      if (transcript instanceof Error) throw transcript
      return transcript
    },
  })
  it.each([
    {
      what: 'an image that cannot be read',
      input: () => ({ images: [join(folder, 'missing.png')] }),
      english: '[Image: could not be read]',
      chinese: '[图片:无法读取]',
    },
    {
      what: 'a file that is not an image',
      input: () => ({ images: [join(folder, 'notes.txt')] }),
      english: '[Image: not an image]',
      chinese: '[图片:不是图片]',
    },
    {
      what: 'a failed description',
      // Not an image described before (descriptions are cached by content).
      input: () => ({ images: [png.replace('base64,', 'base64,AAAA')] }),
      english: '[Image: description failed]',
      chinese: '[图片:描述失败]',
    },
    {
      what: 'a file that cannot be read',
      input: () => ({ files: [join(folder, 'missing.txt')] }),
      english: 'missing.txt (could not be read)]',
      chinese: 'missing.txt（无法读取）]',
    },
    {
      what: 'a file that is not text',
      input: () => ({ files: [join(folder, 'blob.bin')] }),
      english: 'blob.bin (not a text file, not read)]',
      chinese: 'blob.bin（非文本文件，未读取）]',
    },
  ])('$what', async ({ input, english, chinese }) => {
    charpipe = await createCharpipe(config(), { parts: { createImageDescriber: () => describer } })
    const both = await previewBoth(input())
    expect(both.english).toContain(english)
    expect(both.chinese).toContain(chinese)
  })

  it('writes a transcript, or its failure, as a voice message', async () => {
    charpipe = await createCharpipe(config(), {
      parts: { createAudioTranscriber: () => transcriber('hello') },
    })
    const heard = await previewBoth({ files: [wavDataUri()] })
    expect(heard.english).toContain('[Voice: hello]')
    expect(heard.chinese).toContain('[语音:hello]')
    await charpipe.close()
    charpipe = await createCharpipe(config(), {
      parts: { createAudioTranscriber: () => transcriber(new Error('the speech endpoint is down')) },
    })
    // Another recording than the one whose transcript is cached.
    const failed = await previewBoth({ files: [wavDataUri(32)] })
    expect(failed.english).toContain('[Voice: transcription failed]')
    expect(failed.chinese).toContain('[语音:转写失败]')
  })

  it('leaves a file nothing read when attachment-text is off', async () => {
    charpipe = await createCharpipe(
      config({ pipeline: { processors: { 'attachment-text': { enabled: false } } } }),
    )
    const both = await previewBoth({ files: [join(folder, 'notes.txt')] })
    expect(both.english).toMatch(/\[File: [^\]]*notes\.txt \(not read\)\]/)
    expect(both.chinese).toMatch(/\[文件:[^\]]*notes\.txt（未读取）\]/)
  })
})

describe("the group chat's frame in the character's language", () => {
  it('frames observed lines and the current message, and keeps a configured template', async () => {
    charpipe = await createCharpipe(config())
    const observe = (session: string, character?: string) =>
      charpipe!.sessions.observe({
        session,
        ...(character ? { character } : {}),
        speaker: { id: '1', name: 'Ann' },
        text: 'hi all',
      })
    observe('en', 'mira')
    observe('zh')
    const speaker = { id: '2', name: 'Bo' }
    const { english, chinese } = await previewBoth({ speaker })
    expect(english).toBe('[Group chat]\nAnn(1): hi all\n[Current message]\nBo(2): Look.')
    expect(chinese).toBe('[群聊记录]\nAnn(1): hi all\n[当前消息]\nBo(2): 看。')

    const alone = await charpipe.inspect.preview({ session: 'x', character: 'mira', speaker, text: 'Hi.' })
    expect(lastUserOf(alone)).toBe('[Current message]\nBo(2): Hi.')
    const chineseAlone = await charpipe.inspect.preview({ session: 'y', speaker, text: '你好' })
    expect(lastUserOf(chineseAlone)).toBe('[当前消息]\nBo(2): 你好')

    await charpipe.close()
    charpipe = await createCharpipe(
      config({ conversation: { group: { current_template: '<<{{current}}>>' } } }),
    )
    const configured = await charpipe.inspect.preview({
      session: 'x',
      character: 'mira',
      speaker,
      text: 'Hi.',
    })
    expect(lastUserOf(configured)).toBe('<<Bo(2): Hi.>>')
  })

  it('a turn reads and stores the frame the preview shows', async () => {
    charpipe = await createCharpipe(config())
    const ann = { id: '1', name: 'Ann' }
    const speaker = { id: '2', name: 'Bo' }
    charpipe.sessions.observe({ session: 'g', speaker: ann, text: 'hi all' })
    await collectEvents(charpipe.generate({ session: 'g', character: 'mira', speaker, text: 'Look.' }))
    // Another session: a line is heard only by the characters present where it is said.
    charpipe.sessions.observe({ session: 'h', speaker: ann, text: 'hi all' })
    await collectEvents(charpipe.generate({ session: 'h', speaker, text: '看。' }))
    const storedUser = async (session: string, character?: string) =>
      (await charpipe!.sessions.history({ session, ...(character ? { character } : {}) })).find(
        (message) => message.role === 'user',
      )?.content
    expect(await storedUser('g', 'mira')).toBe(
      '[Group chat]\nAnn(1): hi all\n[Current message]\nBo(2): Look.',
    )
    expect(await storedUser('h')).toBe('[群聊记录]\nAnn(1): hi all\n[当前消息]\nBo(2): 看。')
  })
})

describe("the fact-extraction request in the character's language", () => {
  it('asks for facts in English for an English character and in Chinese for a Chinese one', async () => {
    const provider = createFakeProvider()
    charpipe = await createCharpipe(
      config({
        memory: { enabled: true, extract: true },
        storage: { sqlite_path: join(folder, 'memory.db') },
      }),
      { provider },
    )
    const extractionOf = async (input: { session: string; text: string; character?: string }) => {
      const before = provider.calls.length
      await collectEvents(charpipe!.generate(input))
      // The turn's request, then the extraction after llm_done.
      await vi.waitFor(() => expect(provider.calls.length).toBe(before + 2))
      return provider.calls[before + 1]!.request.messages.map((message) => messageText(message))
    }
    const [englishSystem, englishRequest] = await extractionOf({
      session: 'en',
      character: 'mira',
      text: 'I love blue.',
    })
    expect(englishSystem).toMatch(
      /^\[Memory upkeep\] You keep the character's long-term memory of the user\./,
    )
    expect(englishRequest).toBe('Known memories:\n(none)\n\nThis turn:\nUser: I love blue.\nMira: 好的。')

    const [chineseSystem, chineseRequest] = await extractionOf({ session: 'zh', text: '我喜欢蓝色。' })
    expect(chineseSystem).toMatch(/^【记忆整理】你负责维护角色对用户的长期记忆。/)
    expect(chineseRequest).toBe('已有记忆：\n（没有）\n\n本轮对话：\n用户: 我喜欢蓝色。\n小助手: 好的。')
  })
})

describe("the idle turn's default instruction in the character's language", () => {
  // A followed session where a person is: its default character speaks first, in English, then Chinese.
  it.each([
    [
      { name: 'Mira', persona: 'A cheerful guide who knows every road of Eldoria.' },
      '(No one has said anything for a while. Start a topic the way your character would, or chat with the people here; a sentence or two is enough.)',
    ],
    [
      { name: '小助手', persona: '一个乐于助人的小助手。' },
      '（一段时间没有人说话了。请按你的性格主动开启一个话题，或者和在场的人聊聊，一两句话即可。）',
    ],
  ])('%o', async (character, instruction) => {
    const clock = createManualClock()
    const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 10 })
    charpipe = await createCharpipe(
      config({ character: { ...character, reply_format: 'plain' }, audience: { idle: { after_ms: 5000 } } }),
      { provider, clock },
    )
    charpipe.sessions.follow({ session: 'room', onEvent: () => {} })
    charpipe.sessions.activity({ session: 'room', speaking: false })
    for (let passed = 0; passed < 5200; passed += 100) await clock.advance(100)
    await vi.waitFor(() => expect(provider.requests.length).toBeGreaterThan(0))
    // Then the note that the turn may end in silence (`conversation.silence`), in the same language.
    const [said, note] = lastUserText(provider.requests[0]!).split('\n\n')
    expect(said).toBe(instruction)
    expect(note).toContain('[silence]')
    expect(note).toMatch(
      character.name === 'Mira' ? /^\(You may choose not to speak/ : /^（这一轮你可以选择不说话/,
    )
  })
})
