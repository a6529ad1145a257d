/**
 * Bad image references through the library: each becomes a placeholder and a log line, the turn
 * still answers, the good image still reaches the model, and nothing refused is stored to be
 * replayed into later turns. An image reference to a text file is never read as text.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../config/schema.js'
import { createCharpipe } from '../engine/create-charpipe.js'
import type { ImageDescriber } from '../shared/image-describer.js'
import type { ChatMessage } from '../shared/messages.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)])
let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'refused-attachments-'))
  await writeFile(join(folder, 'ok.png'), png)
  await writeFile(join(folder, 'big.png'), Buffer.concat([png, Buffer.alloc(4096)]))
  await writeFile(join(folder, 'notes.txt'), 'SECRET-NOTES: not an image')
  await writeFile(join(folder, 'fake.png'), 'SECRET-FAKE: text with an image name')
})
afterAll(() => rm(folder, { recursive: true, force: true }))

const badImages = () => [
  'file://elsewhere/x.png',
  'missing.png',
  'notes.txt',
  'fake.png',
  'big.png',
  'data:text/plain;base64,U0VDUkVULURBVEE=',
  `data:image/png;base64,${Buffer.concat([png, Buffer.alloc(2048)]).toString('base64')}`,
]

function configFor(vision: boolean): CharpipeConfigInput {
  return { llm: { vision }, assets: { dirs: [folder], max_bytes: 1024 } }
}

function allText(messages: ChatMessage[]): string {
  return JSON.stringify(messages)
}

function imageUrls(messages: ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((part) => (part.type === 'image' && part.url ? [part.url] : [])),
  )
}

describe('bad image references', () => {
  it('become placeholders for a vision model; the turn answers and the next turns too', async () => {
    const provider = createFakeProvider()
    const charpipe = await createCharpipe(makeConfig(configFor(true)), { provider })
    try {
      const first = await collectEvents(
        charpipe.generate({ text: '看图', images: [...badImages(), 'ok.png'] }),
      )
      expect(first.some((event) => event.type === 'llm_error')).toBe(false)
      doneOf(first)
      const sent = provider.calls[0]!.request.messages
      expect(allText(sent)).toContain('[图片:无法读取]')
      expect(allText(sent)).toContain('[图片:不是图片]')
      expect(allText(sent)).not.toContain('SECRET')
      expect(imageUrls(sent)).toEqual([`data:image/png;base64,${png.toString('base64')}`])

      // Only the good reference is stored, so later turns replay only it.
      const stored = await charpipe.sessions.history({ session: 'default' })
      expect(stored[0]!.attachments).toEqual(['ok.png'])
      for (let turn = 0; turn < 2; turn++) {
        const events = await collectEvents(charpipe.generate({ text: `再说${turn}` }))
        expect(events.some((event) => event.type === 'llm_error')).toBe(false)
      }
      const later = provider.calls.at(-1)!.request.messages
      expect(allText(later)).not.toContain('无法读取')
      expect(imageUrls(later)).toHaveLength(1)
    } finally {
      await charpipe.close()
    }
  })

  it('become placeholders for a describer too; a text file named as an image is never read', async () => {
    const described: string[] = []
    const describer: ImageDescriber = {
      async describe(image) {
        described.push(image.url)
        return '一只猫'
      },
    }
    const provider = createFakeProvider()
    const charpipe = await createCharpipe(makeConfig(configFor(false)), {
      provider,
      parts: { createImageDescriber: () => describer },
    })
    try {
      const events = await collectEvents(
        charpipe.generate({ text: '看图', images: [...badImages(), 'ok.png'] }),
      )
      expect(events.some((event) => event.type === 'llm_error')).toBe(false)
      const sent = allText(provider.calls[0]!.request.messages)
      expect(sent).toContain('[图片:一只猫]')
      expect(sent).toContain('[图片:无法读取]')
      expect(sent).toContain('[图片:不是图片]')
      expect(sent).not.toContain('SECRET')
      expect(described).toEqual([`data:image/png;base64,${png.toString('base64')}`])
      expect((await charpipe.sessions.history({ session: 'default' }))[0]!.attachments).toEqual(['ok.png'])
      const preview = await charpipe.inspect.preview({ text: '看图', images: ['missing.png'], session: 'p' })
      expect(preview.logs).toContainEqual(
        expect.objectContaining({ processorId: 'attachment-text', level: 'warn' }),
      )
    } finally {
      await charpipe.close()
    }
  })

  it('a file reference that cannot be read is a placeholder, not a failed turn', async () => {
    const provider = createFakeProvider()
    const charpipe = await createCharpipe(makeConfig(configFor(false)), { provider })
    try {
      const events = await collectEvents(
        charpipe.generate({ text: '读文件', files: ['file://elsewhere/a.txt', 'notes.txt'] }),
      )
      expect(events.some((event) => event.type === 'llm_error')).toBe(false)
      const sent = allText(provider.calls[0]!.request.messages)
      expect(sent).toContain('（无法读取）')
      expect(sent).toContain('SECRET-NOTES')
      expect((await charpipe.sessions.history({ session: 'default' }))[0]!.attachments).toEqual(['notes.txt'])
    } finally {
      await charpipe.close()
    }
  })
})
