/**
 * Store first, then tell: a `/v1/responses` answer says a response is done only once its record is
 * kept, so any id a client is told of as done can be read back and continued at once; a record
 * that cannot be kept is `response.failed` (streamed) or a 503 `store_unavailable` (not streamed),
 * never a completed response. A client that leaves a stream has its reply stored, and its response
 * kept, with the text it was sent, on both `/v1` endpoints.
 */
import OpenAI from 'openai'
import { describe, expect, it, vi } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()
const start = () => suite.start(['character:', '  name: Mika', '  persona: A cheerful barista.'])

const openai = () => new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: 'unused', maxRetries: 0 })

/** The records store refuses every write from now on. */
function failRecordWrites() {
  const spy = vi.spyOn(suite.server.charpipe.records, 'keep').mockRejectedValue(new Error('disk full'))
  suite.onCleanup(() => spy.mockRestore())
}

describe('store first, then tell', () => {
  it('reads back and continues at once every response whose response.completed was streamed', async () => {
    await start()
    for (let round = 0; round < 5; round++) {
      suite.model.script({ text: `Reply ${round}.` })
      const stream = await openai().responses.create({ model: 'mika', input: `Hello ${round}`, stream: true })
      for await (const event of stream) {
        if (event.type !== 'response.completed') continue
        // Asked the moment the completion arrives, before the stream has even ended.
        const read = await fetch(`${suite.server.url}/v1/responses/${event.response.id}`)
        expect(read.status).toBe(200)
      }
    }
  })

  it('answers 503 store_unavailable, and no response id, when the record cannot be kept', async () => {
    await start()
    failRecordWrites()
    await expect(openai().responses.create({ model: 'mika', input: 'Hi' })).rejects.toMatchObject({
      status: 503,
      error: { code: 'store_unavailable' },
    })
  })

  it('ends a stream with response.failed naming the store when the record cannot be kept', async () => {
    await start()
    failRecordWrites()
    const stream = await openai().responses.create({ model: 'mika', input: 'Hi', stream: true })
    const types: string[] = []
    let failed: { error: { code: string } | null } | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.failed') failed = event.response
    }
    expect(types).not.toContain('response.completed')
    expect(types.at(-1)).toBe('response.failed')
    expect(failed!.error!.code).toBe('store_unavailable')
  })

  it('stores nothing and says so when store: false, with the response completed', async () => {
    await start()
    failRecordWrites()
    const answer = await openai().responses.create({ model: 'mika', input: 'Hi', store: false })
    expect(answer.status).toBe('completed')
  })
})

// One short sentence, then one that does not end while the client reads: a reply stored as its
// finished sentences would hold the first alone.
const story = `Once there was a cat. ${'and it sat and napped on the mat '.repeat(30)}`

/** Reads a stream until `enough` says so, then leaves; what it was given by then. */
async function readThenLeave(
  path: string,
  body: Record<string, unknown>,
  readText: (data: string) => string,
  enough: (text: string) => boolean,
) {
  const controller = new AbortController()
  const response = await fetch(`${suite.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mika', stream: true, ...body }),
    signal: controller.signal,
  })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let received = ''
  let id = ''
  while (!enough(received)) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    const blocks = buffer.split('\n\n')
    buffer = blocks.pop()!
    for (const block of blocks) {
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n')
      if (!data || data === '[DONE]') continue
      id ||= /"id":"(resp_[0-9a-f]+)"/.exec(data)?.[1] ?? ''
      received += readText(data)
    }
  }
  controller.abort()
  return { received, id }
}

async function readStoredReply(session: string): Promise<string> {
  let stored: { role: string; content: string; interrupted?: boolean } | undefined
  await expect
    .poll(
      async () => {
        const history = await (await fetch(`${suite.server.url}/api/sessions/${session}/messages`)).json()
        stored = history.messages.at(-1)
        return stored
      },
      { timeout: 20_000 },
    )
    .toMatchObject({ role: 'assistant', interrupted: true })
  return stored!.content
}

/** Well into the second sentence. */
const pastASentence = (text: string) => text.length > 60

describe('a client that leaves a stream', () => {
  it('/v1/chat/completions: the reply is stored with the text it was sent', async () => {
    await start()
    suite.model.script({ text: story, chunkSize: 3, delayMs: 15 })
    const { received } = await readThenLeave(
      '/v1/chat/completions',
      { messages: [{ role: 'user', content: 'A story' }], user: 'leaver' },
      (data) => JSON.parse(data).choices?.[0]?.delta?.content ?? '',
      pastASentence,
    )
    const stored = await readStoredReply('leaver')
    // The server may have sent a little more than the client read before it left; never less.
    expect(stored.startsWith(received)).toBe(true)
    expect(story.startsWith(stored)).toBe(true)
  })

  it('/v1/responses: the reply is stored, and the response kept, with the text it was sent', async () => {
    await start()
    suite.model.script({ text: story, chunkSize: 3, delayMs: 15 })
    const { received, id } = await readThenLeave(
      '/v1/responses',
      { input: 'A story', user: 'leaver' },
      (data) => {
        const event = JSON.parse(data)
        return event.type === 'response.output_text.delta' ? event.delta : ''
      },
      pastASentence,
    )
    const stored = await readStoredReply('leaver')
    expect(stored.startsWith(received)).toBe(true)
    expect(story.startsWith(stored)).toBe(true)
    await expect
      .poll(async () => (await fetch(`${suite.server.url}/v1/responses/${id}`)).status, { timeout: 20_000 })
      .toBe(200)
    const resource = await (await fetch(`${suite.server.url}/v1/responses/${id}`)).json()
    expect(resource.status).toBe('incomplete')
    // The kept response holds the same text as the stored reply.
    expect(resource.output[0].content[0].text).toBe(stored)
  })
})
