import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContentPart } from '../../shared/messages.js'
import { createFakeBuildOptions } from '../../testing/create-fake-build-options.js'
import { sniffMediaType } from '../assets/sniff-media-type.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import type { ImageDescriber } from '../types.js'

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82])
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0])

let root: string
let assets: string
let outside: string

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'charpipe-assets-'))
  assets = join(root, 'assets')
  outside = join(root, 'outside')
  await mkdir(assets)
  await mkdir(outside)
  await writeFile(join(assets, 'cat.png'), png)
  await writeFile(join(assets, 'photo.jpg'), jpeg)
  // Named .png, but the bytes are text: sniffing decides.
  await writeFile(join(assets, 'fake.png'), 'not an image')
  await writeFile(join(assets, 'big.png'), Buffer.concat([png, Buffer.alloc(2000)]))
  await writeFile(join(assets, 'notes.txt'), '会议纪要：周五交报告')
  await writeFile(join(assets, 'binary.dat'), Buffer.from([1, 0, 2, 0, 3]))
  await writeFile(join(outside, 'secret.png'), png)
  await symlink(join(outside, 'secret.png'), join(assets, 'link.png'))
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

async function buildWith(options: {
  images?: string[]
  files?: string[]
  vision?: boolean
  maxBytes?: number
  describer?: ImageDescriber
}) {
  const build = createFakeBuildOptions({
    input: { text: '看看', images: options.images, files: options.files },
    config: {
      llm: { vision: options.vision ?? true },
      assets: { dirs: [assets], max_bytes: options.maxBytes ?? 1000 },
    },
    imageDescriber: options.describer,
  })
  const result = await createContextPipeline().build(build)
  const input = result.messages.at(-1)!
  return { parts: input.content as ContentPart[], logs: result.logs }
}

describe('sniffMediaType', () => {
  it('knows PNG and JPEG by their bytes', () => {
    expect(sniffMediaType(png)).toBe('image/png')
    expect(sniffMediaType(jpeg)).toBe('image/jpeg')
    expect(sniffMediaType(Buffer.from('hello'))).toBeUndefined()
  })
})

describe('asset-resolver', () => {
  it('inlines local images inside assets.dirs as data URIs with the sniffed type', async () => {
    const { parts } = await buildWith({ images: ['cat.png', join(assets, 'photo.jpg')] })
    expect(parts[1]).toMatchObject({ type: 'image', mediaType: 'image/png' })
    expect((parts[1] as { url: string }).url).toBe(`data:image/png;base64,${png.toString('base64')}`)
    expect(parts[2]).toMatchObject({ type: 'image', mediaType: 'image/jpeg' })
  })

  it.each([
    ['an absolute path outside', () => join(outside, 'secret.png')],
    ['a path that climbs out with ..', () => '../outside/secret.png'],
    ['a symlink that points outside', () => 'link.png'],
  ])('refuses %s with a clear log', async (_, reference) => {
    const { parts, logs } = await buildWith({ images: [reference()] })
    expect(parts[1]).toEqual({ type: 'text', text: '[图片:无法读取]' })
    const log = logs.find((entry) => entry.processorId === 'asset-resolver')!
    expect(log.level).toBe('warn')
    expect(log.message).toContain('refused: not found inside assets.dirs')
  })

  it('refuses a file over assets.max_bytes', async () => {
    const { parts, logs } = await buildWith({ images: ['big.png'] })
    expect(parts[1]).toMatchObject({ type: 'text' })
    expect(logs.find((entry) => entry.processorId === 'asset-resolver')!.message).toContain(
      'over assets.max_bytes (1000)',
    )
  })

  it('refuses a file whose bytes are not an image, whatever its name', async () => {
    const { parts, logs } = await buildWith({ images: ['fake.png'] })
    expect(parts[1]).toEqual({ type: 'text', text: '[图片:不是图片]' })
    expect(logs.some((entry) => entry.message.includes('not a PNG, JPEG, GIF or WebP'))).toBe(true)
  })

  it('passes https URLs and image data URIs through, and refuses other data', async () => {
    const dataUri = `data:image/png;base64,${png.toString('base64')}`
    const { parts } = await buildWith({
      images: ['https://example.test/a.png', dataUri, 'data:text/html;base64,PGgxPg=='],
    })
    expect(parts[1]).toEqual({ type: 'image', url: 'https://example.test/a.png' })
    expect(parts[2]).toEqual({ type: 'image', url: dataUri })
    expect(parts[3]).toMatchObject({ type: 'text' })
  })
})

describe('attachment-text', () => {
  it('reads a UTF-8 text file into the message and leaves binary files out', async () => {
    const { parts, logs } = await buildWith({ files: ['notes.txt', 'binary.dat', '../outside/secret.png'] })
    expect(parts[1]).toEqual({ type: 'text', text: '[文件:notes.txt]\n会议纪要：周五交报告\n[/文件]' })
    expect(parts[2]).toEqual({ type: 'text', text: '[文件:binary.dat（非文本文件，未读取）]' })
    expect(parts[3]).toEqual({ type: 'text', text: '[文件:secret.png（无法读取）]' })
    expect(logs.filter((entry) => entry.processorId === 'attachment-text')).toHaveLength(2)
  })

  it('describes images for a model without vision: [图片:…] and [回复图片:…]', async () => {
    const seen: string[] = []
    const describer: ImageDescriber = {
      async describe(image) {
        seen.push(image.url.slice(0, 23))
        return '一只橘猫'
      },
    }
    const { parts } = await buildWith({ images: ['photo.jpg'], vision: false, describer })
    expect(parts[1]).toEqual({ type: 'text', text: '[图片:一只橘猫]' })
    expect(seen).toEqual(['data:image/jpeg;base64,'])
  })

  it('marks an image being replied to as [回复图片:…]', async () => {
    const pipeline = createContextPipeline()
    pipeline.register({
      id: 'mark-reply',
      name: 'Mark reply',
      description: 'marks the input image as the one being replied to',
      priority: 240,
      execute(context) {
        const input = context.messages.at(-1)!
        input.content = (input.content as ContentPart[]).map((part) =>
          part.type === 'image' ? { ...part, inReplyTo: true } : part,
        )
      },
    })
    const describer: ImageDescriber = { describe: async () => '一张截图' }
    const build = createFakeBuildOptions({
      input: { images: ['https://example.test/reply.png'] },
      imageDescriber: describer,
    })
    const { messages } = await pipeline.build(build)
    expect((messages.at(-1)!.content as ContentPart[])[1]).toEqual({
      type: 'text',
      text: '[回复图片:一张截图]',
    })
  })

  it('says clearly that the model cannot see the image when there is no describer', async () => {
    const { parts } = await buildWith({ images: ['https://example.test/b.png'], vision: false })
    expect(parts[1]).toEqual({ type: 'text', text: '[图片:当前模型看不到图片，且未配置图片描述]' })
  })
})
