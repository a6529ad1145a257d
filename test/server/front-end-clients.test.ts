/**
 * The front ends people run, each through the client library it uses and sending what it sends,
 * served by its named client's profile (`server.clients[].profile`) over the real engine and the
 * mock model server:
 * - AIRI (`@xsai/stream-text` with an OpenAI-compatible provider of `@xsai-ext/providers`): its own
 *   system prompt and whole history on every request, no `user`, no header. The character's persona
 *   and stored conversation win, the turn is stored, and the emotion arrives as `<|ACT …|>` tokens
 *   that AIRI's own parser accepts.
 * - Open-LLM-VTuber (`openai_compatible_llm`, the OpenAI wire shape; the `openai` SDK here): its own
 *   persona prompt and history; `[name]` keys of its model's `emotionMap`; a barge-in closes the
 *   stream, and the turn is stored as interrupted with the text that was sent.
 * - A request without a token is served as before; one whose token is no client's is refused (401).
 */
import { streamText } from '@xsai/stream-text'
import { createChatProvider } from '@xsai-ext/providers/utils'
import OpenAI from 'openai'
import { describe, expect, it, vi } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()

const airiToken = 'airi-token-0123456789abcdef'
const olvToken = 'olv-token-0123456789abcdef'
// Open-LLM-VTuber's default Live2D model (shizuku): the keys of its emotionMap.
const olvEmotionMap = { neutral: 0, anger: 2, disgust: 2, fear: 1, joy: 3, smirk: 3, sadness: 1, surprise: 3 }

const start = (extraYaml: string[] = []) =>
  suite.start([
    ...extraYaml,
    'character:',
    '  name: Mika',
    '  persona: A cheerful barista who loves latte art.',
    '  inline_emotion_tags: true',
    'server:',
    '  clients:',
    `    - name: airi`,
    `      token: ${airiToken}`,
    '      profile: { session: client, persona: server, history: server, emotion: act }',
    `    - name: olv`,
    `      token: ${olvToken}`,
    '      profile:',
    '        session: client',
    '        persona: server',
    '        history: server',
    '        emotion: bracket',
    '        emotion_names: { 开心: joy, 难过: sadness, 平静: neutral, 生气: anger, 惊讶: surprise }',
  ])

type SentMessage = { role: string; content: string }
const sentTo = (index = -1): SentMessage[] =>
  (suite.model.requests.at(index)!.body as { messages: SentMessage[] }).messages

type StoredMessage = { role: string; content: string; interrupted?: boolean }
const storedFor = async (token: string, session = 'openai'): Promise<StoredMessage[]> => {
  const response = await fetch(`${suite.server.url}/api/sessions/${session}/messages`, {
    headers: { authorization: `Bearer ${token}` },
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { messages: StoredMessage[] }).messages
}

// AIRI's stage: its marker parser hands each `<|…|>` alone to this regex (stage-ui queues.ts).
const airiActPattern = /<\|ACT\s*(?::\s*)?(\{[\s\S]*\})\|>/i
const readAiriExpressions = (content: string) =>
  (content.match(/<\|[\s\S]*?\|>/g) ?? []).map((special) => {
    const match = airiActPattern.exec(special)
    expect(match, special).not.toBeNull()
    return (JSON.parse(match![1]!) as { emotion: { name: string } }).emotion.name
  })

/** AIRI's chat: its system prompt, the history it keeps, the new message, streamed. */
async function airiSend(history: { role: 'user' | 'assistant'; content: string }[], text: string) {
  const provider = createChatProvider({ apiKey: airiToken, baseURL: `${suite.server.url}/v1/` })
  const result = streamText({
    ...provider.chat('mika'),
    messages: [
      { role: 'system', content: 'You are AIRI, a virtual being. Express emotions with ACT tokens.' },
      ...history,
      { role: 'user', content: text },
    ],
  })
  let content = ''
  const reader = result.textStream.getReader()
  for (let read = await reader.read(); !read.done; read = await reader.read()) content += read.value
  return content
}

describe('AIRI (@xsai/stream-text) with the profile persona: server, history: server, emotion: act', () => {
  it("the character's persona and stored conversation are used, the turn is stored, the face follows ACT tokens", async () => {
    await start()
    suite.model.script([
      { text: '[开心]Welcome in! Latte art is my thing. [难过]But the milk ran out.', chunkSize: 5 },
      { text: '[惊讶]You told me: your name is Robin!', chunkSize: 5 },
    ])
    const first = await airiSend([], 'Hi, I am Robin.')
    expect(readAiriExpressions(first)).toEqual(['happy', 'sad'])
    expect(first.startsWith('<|ACT:')).toBe(true)
    expect(first.replace(/<\|[\s\S]*?\|>/g, '')).toBe(
      'Welcome in! Latte art is my thing. But the milk ran out.',
    )
    const firstPrompt = JSON.stringify(sentTo())
    expect(firstPrompt).toContain('latte art')
    expect(firstPrompt).not.toContain('You are AIRI')

    // AIRI resends its own (here: edited) history; the store wins and only the new message is input.
    const second = await airiSend(
      [
        { role: 'user', content: 'Hi, I am Robin.' },
        { role: 'assistant', content: 'an edited reply the store never had' },
      ],
      'What is my name?',
    )
    expect(readAiriExpressions(second)).toEqual(['surprised'])
    const sent = sentTo()
    const spoken = sent.filter((message) => message.role !== 'system').map((message) => message.content)
    expect(spoken[0]).toBe('Hi, I am Robin.')
    expect(spoken.at(-1)).toBe('What is my name?')
    expect(JSON.stringify(sent)).toContain('the milk ran out')
    expect(JSON.stringify(sent)).not.toContain('an edited reply')
    expect(JSON.stringify(sent)).not.toContain('You are AIRI')

    const stored = await storedFor(airiToken)
    expect(stored.map((message) => message.content)).toEqual([
      'Hi, I am Robin.',
      'Welcome in! Latte art is my thing. But the milk ran out.',
      'What is my name?',
      'You told me: your name is Robin!',
    ])
    // Another client's namespace does not see it.
    expect(await storedFor(olvToken)).toEqual([])
  })
})

describe('long-term memory for a front end that resends its own history', () => {
  it("the character's memory of this client's session reaches the prompt once the turn is out of the history window", async () => {
    await start(['history:', '  max_turns: 1'])
    suite.model.script([{ text: 'Miso is a lovely name.' }, { text: 'Rain is cosy.' }, { text: 'Miso!' }])
    const history: { role: 'user' | 'assistant'; content: string }[] = []
    const say = async (text: string) => {
      const reply = await airiSend([...history], text)
      history.push({ role: 'user', content: text }, { role: 'assistant', content: reply })
    }
    await say('My cat is called Miso.')
    // The memory is written after the turn; the next question waits until it is there.
    await vi.waitFor(
      async () => {
        const memories = await suite.server.charpipe.memory!.list({ limit: 50 })
        expect(memories.map((memory) => memory.text).join(' ')).toContain('Miso')
      },
      { timeout: 20_000, interval: 50 },
    )
    await say('I like rainy days.')
    await say('What is my cat called?')
    const sent = sentTo()
    const spoken = sent.filter((message) => message.role !== 'system').map((message) => message.content)
    // One turn of history (max_turns: 1), not the first one; the cat's name comes from memory.
    expect(spoken.join(' ')).not.toContain('My cat is called Miso.')
    expect(sent[0]!.content).toContain('Miso')
  })
})

describe('a regenerate (the same last message sent again right after) with history: server', () => {
  it('replaces the last reply instead of adding a turn, and the model never sees the earlier answer', async () => {
    await start()
    suite.model.script([
      { text: '[开心]Hello Robin!' },
      { text: '[开心]Why did the latte go to school? To get a little foam-al education.' },
      { text: '[开心]What do you call a sad coffee? Depresso.' },
    ])
    const first = await airiSend([], 'Hi, I am Robin.')
    await airiSend(
      [
        { role: 'user', content: 'Hi, I am Robin.' },
        { role: 'assistant', content: first },
      ],
      'Tell me a joke',
    )
    // AIRI's regenerate: its last reply dropped, the same message sent again.
    const history = [
      { role: 'user' as const, content: 'Hi, I am Robin.' },
      { role: 'assistant' as const, content: first },
    ]
    const again = await airiSend(history, 'Tell me a joke')
    expect(again).toContain('Depresso')
    const spoken = sentTo()
      .filter((message) => message.role !== 'system')
      .map((message) => message.content)
    expect(spoken.at(-1)).toBe('Tell me a joke')
    expect(spoken.filter((content) => content === 'Tell me a joke')).toHaveLength(1)
    expect(JSON.stringify(sentTo())).not.toContain('foam-al')
    const stored = (await storedFor(airiToken)).map((message) => message.content)
    expect(stored).toEqual([
      'Hi, I am Robin.',
      'Hello Robin!',
      'Tell me a joke',
      'What do you call a sad coffee? Depresso.',
    ])

    // Said again after its reply (the client has that reply): a new turn, not a regenerate.
    suite.model.script({ text: '[开心]Another one: decaf is a brew-tal lie.' })
    await airiSend(
      [...history, { role: 'user', content: 'Tell me a joke' }, { role: 'assistant', content: again }],
      'Tell me a joke',
    )
    expect(await storedFor(airiToken)).toHaveLength(6)
  })
})

describe('a regenerate forgets what long-term memory took from the reply it replaces', () => {
  const memoryTexts = async () =>
    (await suite.server.charpipe.memory!.list({ limit: 100 })).map((memory) => memory.text).join('\n')
  const waitForMemory = (text: string) =>
    vi.waitFor(async () => expect(await memoryTexts()).toContain(text), { timeout: 20_000, interval: 50 })
  const extraction = (fact: string) => ({ text: JSON.stringify({ memory: [{ event: 'add', text: fact }] }) })

  it('facts extracted from the replaced turn (memory.extract: true) are gone, the others stay', async () => {
    await start(['memory:', '  extract: true'])
    // Each turn's reply, then the extraction the turn's memory asks the model for.
    suite.model.script([{ text: '[开心]Hello Robin!' }, extraction('The user is called Robin.')])
    const first = await airiSend([], 'Hi, I am Robin.')
    await waitForMemory('called Robin')
    const history = [
      { role: 'user' as const, content: 'Hi, I am Robin.' },
      { role: 'assistant' as const, content: first },
    ]
    suite.model.script([
      { text: '[开心]Your usual: tea with lemon.' },
      extraction('The user drinks tea with lemon.'),
    ])
    await airiSend(history, 'What do I usually drink?')
    await waitForMemory('tea with lemon')

    // AIRI regenerates: the same question again, its last reply dropped.
    suite.model.script([
      { text: '[开心]Your usual: a black coffee.' },
      extraction('The user drinks black coffee.'),
    ])
    const again = await airiSend(history, 'What do I usually drink?')
    expect(again).toContain('black coffee')
    await waitForMemory('black coffee')
    const remembered = await memoryTexts()
    expect(remembered).not.toContain('lemon')
    expect(remembered).toContain('called Robin')
    // The extractor of the new reply was not shown the replaced turn's fact as known.
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).not.toContain('lemon')
    const [newest] = await suite.server.charpipe.memory!.list({ limit: 1 })
    const found = await suite.server.charpipe.memory!.search('lemon tea', { scope: newest!.scope, k: 10 })
    expect(found.map((hit) => hit.text).join(' ')).not.toContain('lemon')
  })

  it('the exchange remembered from the replaced turn (no extraction) is gone too', async () => {
    await start()
    suite.model.script([
      { text: '[开心]Hello Robin!' },
      { text: '[开心]Why did the latte go to school? Foam-al education.' },
    ])
    const first = await airiSend([], 'Hi, I am Robin.')
    const history = [
      { role: 'user' as const, content: 'Hi, I am Robin.' },
      { role: 'assistant' as const, content: first },
    ]
    await airiSend(history, 'Tell me a joke')
    await waitForMemory('Foam-al')
    suite.model.script({ text: '[开心]What do you call a sad coffee? Depresso.' })
    await airiSend(history, 'Tell me a joke')
    await waitForMemory('Depresso')
    const remembered = await memoryTexts()
    expect(remembered).not.toContain('Foam-al')
    expect(remembered).toContain('Hello Robin!')
  })
})

describe('Open-LLM-VTuber (openai_compatible_llm) with emotion: bracket', () => {
  const olv = () => new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: olvToken, maxRetries: 0 })
  const olvMessages = (text: string) => [
    { role: 'system' as const, content: 'You are Shizuku. Use [joy], [sadness]… before your sentences.' },
    { role: 'user' as const, content: text },
  ]

  it('[name] keys of the emotionMap before the text they apply to, no emotion field', async () => {
    await start()
    suite.model.script({
      text: '[开心]So good to see you. [生气]Not the spilled coffee though!',
      chunkSize: 4,
    })
    const stream = await olv().chat.completions.create({
      model: 'mika',
      messages: olvMessages('Hello!'),
      stream: true,
    })
    let content = ''
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? ''
      expect(chunk.choices[0]?.delta).not.toHaveProperty('emotion')
    }
    expect(content).toBe('[joy]So good to see you. [anger]Not the spilled coffee though!')
    const keys = [...content.matchAll(/\[([^\]]+)\]/g)].map((match) => match[1]!)
    for (const key of keys) expect(Object.keys(olvEmotionMap)).toContain(key)

    const answer = await olv().chat.completions.create({ model: 'mika', messages: olvMessages('Again?') })
    expect(answer.choices[0]!.message.content).toMatch(/^\[\w+\]/)
    expect(answer.choices[0]!.message).not.toHaveProperty('emotion')
  })

  it('a barge-in (the stream closed early) is stored as interrupted with the text that was sent', async () => {
    await start()
    const sentences = Array.from({ length: 12 }, (_, index) => `This is sentence ${index + 1} of the story.`)
    suite.model.script({ text: `[开心]${sentences.join(' ')}`, chunkSize: 4, delayMs: 60 })
    const controller = new AbortController()
    const stream = await olv().chat.completions.create(
      { model: 'mika', messages: olvMessages('Tell me a story.'), stream: true },
      { signal: controller.signal },
    )
    // Open-LLM-VTuber stops reading as soon as the user speaks: here, after the first sentence.
    let received = ''
    try {
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta.content ?? ''
        if (received.includes('.')) controller.abort()
      }
    } catch (error) {
      expect((error as Error).name).toMatch(/Abort/)
    }
    expect(received.startsWith('[joy]This is sentence 1 of the story.')).toBe(true)
    const stored = await vi.waitFor(
      async () => {
        const messages = await storedFor(olvToken)
        expect(messages).toHaveLength(2)
        return messages
      },
      { timeout: 20_000, interval: 50 },
    )
    expect(stored[0]!.content).toBe('Tell me a story.')
    expect(stored[1]!.interrupted).toBe(true)
    expect(stored[1]!.content.startsWith('This is sentence 1 of the story.')).toBe(true)
    expect(stored[1]!.content.length).toBeLessThan(sentences.join(' ').length)
  })
})

describe('a request without a named client', () => {
  it('is served as before when it carries no token: its own prompt honoured, stateless, the emotion as a field', async () => {
    await start()
    suite.model.script({ text: '[开心]Ahoy!' })
    const response = await fetch(`${suite.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'mika',
        messages: [
          { role: 'system', content: 'You are Captain Lark.' },
          { role: 'user', content: 'Hi' },
        ],
      }),
    })
    expect(response.status).toBe(200)
    const answer = (await response.json()) as {
      choices: { message: { content: string; emotion?: string } }[]
    }
    const message = answer.choices[0]!.message
    expect(message.content).toBe('Ahoy!')
    // Mika is an English character: the model's 开心 is her label happy.
    expect(message.emotion).toBe('happy')
    expect(JSON.stringify(sentTo())).toContain('Captain Lark')
    expect(JSON.stringify(sentTo())).not.toContain('latte art')
    const stored = await (await fetch(`${suite.server.url}/api/sessions/openai/messages`)).json()
    expect(stored.messages).toEqual([])
  })

  it('is refused with 401 when its token is no client’s: a mistyped client token never loses its profile silently', async () => {
    await start()
    const requests = suite.model.requests.length
    const client = new OpenAI({
      baseURL: `${suite.server.url}/v1`,
      apiKey: 'airi-token-mistyped',
      maxRetries: 0,
    })
    const refused = await client.chat.completions
      .create({ model: 'mika', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 401 })
    expect(String((refused as Error).message)).toContain('the token is not known')
    expect(suite.model.requests.length).toBe(requests)
  })
})
