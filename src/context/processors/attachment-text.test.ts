import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContentPart } from '../../shared/messages.js'
import { createFakeBuildOptions } from '../../testing/create-fake-build-options.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import type { ImageDescriber } from '../types.js'

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82])
let server: Server
let base: string
let fetched = 0

beforeAll(async () => {
  server = createServer((_request, response) => {
    fetched++
    response.end(png)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

function createRecordingDescriber(needsImageBytes: boolean) {
  const seen: string[] = []
  const describer: ImageDescriber = {
    needsImageBytes,
    async describe(image) {
      seen.push(image.url)
      return '一只猫'
    },
  }
  return { describer, seen }
}

async function describeImage(url: string, describer: ImageDescriber, allowPrivate = false) {
  const build = createFakeBuildOptions({
    input: { text: '看看', images: [url] },
    config: { llm: { vision: false }, assets: { allow_private_urls: allowPrivate } },
    imageDescriber: describer,
  })
  const result = await createContextPipeline().build(build)
  const parts = result.messages.at(-1)!.content as ContentPart[]
  return { text: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''), logs: result.logs }
}

describe('attachment-text with image URLs', () => {
  it('passes a URL on to a describer that takes URLs, fetching nothing', async () => {
    const { describer, seen } = createRecordingDescriber(false)
    const before = fetched
    const { text } = await describeImage(`${base}/passed-on.png`, describer, true)
    expect(text).toContain('[图片:一只猫]')
    expect(seen).toEqual([`${base}/passed-on.png`])
    expect(fetched).toBe(before)
  })

  it('fetches the bytes for a describer that needs them, within the checks', async () => {
    const { describer, seen } = createRecordingDescriber(true)
    const { text } = await describeImage(`${base}/fetched.png`, describer, true)
    expect(text).toContain('[图片:一只猫]')
    expect(seen[0]).toMatch(/^data:image\/png;base64,/)
  })

  it('refuses a private address by default and says why in the logs', async () => {
    const { describer, seen } = createRecordingDescriber(true)
    const before = fetched
    const { text, logs } = await describeImage(`${base}/private.png`, describer)
    expect(text).toContain('[图片:无法读取]')
    expect(seen).toEqual([])
    expect(fetched).toBe(before)
    expect(logs.map((log) => log.message).join('\n')).toContain('assets.allow_private_urls')
  })
})
