/**
 * `/v1/chat/completions` with real third-party clients (the official `openai` SDK, LangChain.js
 * `ChatOpenAI`, the Vercel AI SDK) over the real engine and the mock model server: a client that
 * keeps its own conversation has its system prompt and history honoured and leaves nothing in
 * anyone's session; a client that sends one message has the server keep its conversation, in a
 * session of its own; failures a retry cannot mend are not retried; a character is chosen by id or
 * name.
 */
import { createOpenAI } from '@ai-sdk/openai'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import { generateText } from 'ai'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()

const characters = [
  'character:',
  '  name: Mika',
  '  persona: A cheerful barista who loves latte art.',
  'characters:',
  '  seraphina:',
  '    name: Seraphina',
  '    persona: A forest guardian.',
]

const start = () => suite.start(characters)

const openai = (headers: Record<string, string> = {}, maxRetries = 0) =>
  new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: 'unused', maxRetries, defaultHeaders: headers })

type SentMessage = { role: string; content: string }
/** The messages of the model request `index` (from the end with a negative index). */
const sentTo = (index = -1): SentMessage[] =>
  (suite.model.requests.at(index)!.body as { messages: SentMessage[] }).messages

const storedIn = async (session: string): Promise<string[]> => {
  const answer = await (await fetch(`${suite.server.url}/api/sessions/${session}/messages`)).json()
  return (answer.messages as { content: string }[]).map((message) => message.content)
}

const clientConversation = (secret: string) => ({
  system: `You are Captain Lark, a pirate. The password is ${secret}.`,
  history: [
    { role: 'user' as const, content: `My parrot is called ${secret}-bird.` },
    { role: 'assistant' as const, content: 'Arr, a fine name.' },
  ],
  input: 'What is my parrot called?',
})

/** The client's system prompt, its history in order and the input all reached the model; the persona did not. */
function expectHonoured(sent: SentMessage[], conversation: ReturnType<typeof clientConversation>) {
  const text = JSON.stringify(sent)
  expect(sent[0]!.role).toBe('system')
  expect(sent[0]!.content).toContain(conversation.system)
  expect(text).not.toContain('latte art')
  const spoken = sent.filter((message) => message.role !== 'system').map((message) => message.content)
  expect(spoken).toEqual([...conversation.history.map((message) => message.content), conversation.input])
}

describe('a client that keeps its own conversation', () => {
  it('official openai SDK: its system prompt and history are honoured, with the reply format added', async () => {
    await start()
    const conversation = clientConversation('kiwi')
    const completion = await openai().chat.completions.create({
      model: 'mika',
      messages: [
        { role: 'system', content: conversation.system },
        ...conversation.history,
        { role: 'user', content: conversation.input },
      ],
    })
    expect(completion.choices[0]!.message.content).toBeTruthy()
    expectHonoured(sentTo(), conversation)
    // The character's reply format (emotion parsing) is still asked for.
    expect(sentTo()[0]!.content).toContain('emotion')
    // Named no session: stateless, nothing lands in the page's session or any other.
    expect(await storedIn('default')).toEqual([])
    expect(await storedIn('openai')).toEqual([])
  })

  it('LangChain ChatOpenAI: two conversations without a session never see each other', async () => {
    await start()
    const chat = new ChatOpenAI({
      model: 'Seraphina',
      apiKey: 'unused',
      maxRetries: 0,
      configuration: { baseURL: `${suite.server.url}/v1` },
    })
    for (const secret of ['kiwi', 'mango']) {
      const conversation = clientConversation(secret)
      const reply = await chat.invoke([
        new SystemMessage(conversation.system),
        new HumanMessage(conversation.history[0]!.content),
        new AIMessage(conversation.history[1]!.content),
        new HumanMessage(conversation.input),
      ])
      expect(String(reply.content)).toBeTruthy()
      expectHonoured(sentTo(), conversation)
    }
    expect(JSON.stringify(sentTo())).not.toContain('kiwi')
    expect(await storedIn('default')).toEqual([])
  })

  it('Vercel AI SDK: history honoured; with a session named, the turn is kept there and memory added', async () => {
    await start()
    const provider = createOpenAI({
      baseURL: `${suite.server.url}/v1`,
      apiKey: 'unused',
      headers: { 'X-Session-Id': 'ai-sdk-chat' },
    })
    const conversation = clientConversation('papaya')
    const result = await generateText({
      model: provider.chat('mika'),
      system: conversation.system,
      messages: [...conversation.history, { role: 'user', content: conversation.input }],
      maxRetries: 0,
    })
    expect(result.text).toBeTruthy()
    expectHonoured(sentTo(), conversation)
    expect(await storedIn('ai-sdk-chat')).toContain(conversation.input)
    expect(await storedIn('default')).toEqual([])
  })
})

describe('a client that sends only its new message', () => {
  it("gets the character's own history, in a session of its own, never the web page's", async () => {
    await start()
    const client = openai()
    await client.chat.completions.create({
      model: 'Mika',
      messages: [{ role: 'user', content: 'I am Robin.' }],
    })
    await client.chat.completions.create({
      model: 'Mika',
      messages: [{ role: 'user', content: 'Who am I?' }],
    })
    const sent = sentTo()
    expect(sent[0]!.content).toContain('latte art')
    expect(sent.map((message) => message.content)).toContain('I am Robin.')
    expect(await storedIn('openai')).toContain('Who am I?')
    expect(await storedIn('default')).toEqual([])

    // A client with a key has its own, apart from the keyless ones.
    const keyed = openai({ 'X-Charpipe-Client': 'key-of-the-voice-app-0123' })
    await keyed.chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: 'Hello there.' }],
    })
    expect(JSON.stringify(sentTo())).not.toContain('Robin')
  })
})

describe('failures', () => {
  it('a refused provider key is not retried by the official SDK, and the turn is stored once', async () => {
    await start()
    suite.model.script({ status: 401, body: { error: { message: 'Incorrect API key provided' } } })
    const before = suite.model.requests.length
    const failing = openai({ 'X-Session-Id': 'refused' }, 2).chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: 'hello?' }],
    })
    await expect(failing).rejects.toMatchObject({ status: 502 })
    expect(suite.model.requests.length - before).toBe(1)
    expect(await storedIn('refused')).toEqual(['hello?'])
  })

  it('says x-should-retry: false only where a retry cannot help', async () => {
    await start()
    const post = (body: unknown) =>
      fetch(`${suite.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const unknownModel = await post({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] })
    expect(unknownModel.status).toBe(400)
    expect(unknownModel.headers.get('x-should-retry')).toBe('false')
    const noUser = await post({ messages: [{ role: 'system', content: 'hi' }] })
    expect(noUser.headers.get('x-should-retry')).toBe('false')
    suite.model.script({ status: 503, body: 'overloaded' })
    const overloaded = await post({ model: 'mika', messages: [{ role: 'user', content: 'hi' }] })
    expect(overloaded.status).toBe(502)
    expect(overloaded.headers.get('x-should-retry')).toBeNull()
  })
})

describe('model names', () => {
  it("takes a character's id or name in any case, and lists both", async () => {
    await start()
    for (const name of ['Seraphina', 'SERAPHINA', 'seraphina', 'mika', 'MIKA']) {
      const completion = await openai().chat.completions.create({
        model: name,
        messages: [{ role: 'user', content: 'Who are you?' }],
      })
      expect(completion.model).toBe(name)
      expect(sentTo()[0]!.content).toContain(
        name.toLowerCase().startsWith('s') ? 'forest guardian' : 'latte art',
      )
    }
    const models = await openai().models.list()
    expect(models.data.map((entry) => ({ ...entry, created: 0 }))).toEqual([
      { id: 'Mika', object: 'model', created: 0, owned_by: 'charpipe', name: 'Mika', character: 'Mika' },
      {
        id: 'seraphina',
        object: 'model',
        created: 0,
        owned_by: 'charpipe',
        name: 'Seraphina',
        character: 'seraphina',
      },
    ])
  })
})
