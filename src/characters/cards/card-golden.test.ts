/**
 * A card made by the card library, imported, and the messages the model then receives over the
 * OpenAI wire format from the mock model server: the golden record of where each card field lands.
 * Exported and imported again, the character sends the same messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { characterSchema } from '../../config/schema.js'
import { createCharpipe } from '../../engine/create-charpipe.js'
import { makeConfig } from '../../testing/create-turn-harness.js'
import { encodeCardChunkText, makeCardPng, makeCardV2, makeCardV3 } from '../../testing/index.js'
import { type MockModelServer, startMockModelServer } from '../../testing/start-mock-model-server.js'
import { collectEvents } from '../../testing/turn-events.js'
import { exportCharacterCard } from './export-character-card.js'
import { type ImportCharacterCardResult, importCharacterCard } from './import-character-card.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())

/** Two turns with an imported character; returns the messages of each model request. */
async function converse(imported: ImportCharacterCardResult, texts: string[]) {
  server.reset()
  server.script(texts.map((_, index) => ({ text: `{"emotion":"平静"}reply ${index}` })))
  const config = makeConfig({
    llm: { provider: 'custom', base_url: `${server.url}/v1`, model: 'golden-model', max_retries: 0 },
    // Served beside the default character under its id: its own processor settings (the card's
    // system prompt and post-history instructions) and its lorebook apply to its turns only.
    characters: { [imported.id]: imported.character },
  })
  // The first greeting (first_mes) opens the session: a new session is opened with one at random.
  const charpipe = await createCharpipe(config, { random: () => 0 })
  try {
    for (const text of texts)
      await collectEvents(charpipe.generate({ text, session: 'golden', character: imported.id }))
  } finally {
    await charpipe.close()
  }
  return server.requests.map((request) => (request.body as { messages: unknown[] }).messages)
}

// An English card: charpipe's own words around it are English too (character.language: auto).
const formatRules =
  '[Output format] Output one JSON object and nothing else (no code block):\n{"emotion": "<emotion>", "text": "<reply>"}\nemotion must be one of: happy, calm, sad, angry, surprised, afraid, shy.'

describe('an imported card, as the model receives it', () => {
  it('places every field, injects a lorebook entry only once its keys appear, and survives export', async () => {
    const png = makeCardPng({
      chara: encodeCardChunkText(makeCardV2()),
      ccv3: encodeCardChunkText(makeCardV3()),
    })
    const imported = importCharacterCard(png, 'image/png')
    const requests = await converse(imported, ['Hello there.', 'Is the castle safe at night?'])

    const systemPrompt = [
      'You are Seraphina. Stay gentle.',
      'You are Seraphina, talking with User.',
      "[Persona]\nSeraphina is the guardian of an enchanted forest.\n\nSeraphina's personality: warm, protective",
      '[Scenario]\nUser wakes up in a glade.',
      formatRules,
    ].join('\n\n')
    const greeting = '{"emotion": "calm", "text": "*Seraphina kneels beside you.* You are safe now."}'
    const examples = [
      { role: 'user', content: 'Who are you?' },
      { role: 'assistant', content: 'I am Seraphina.\nI keep this forest.' },
      { role: 'user', content: 'Is it dangerous?' },
      // The greeting (first_mes) is the session's first stored reply; consecutive replies are merged.
      { role: 'assistant', content: `Only at night.\n\n${greeting}` },
    ]
    expect(requests[0]).toEqual([
      { role: 'system', content: systemPrompt },
      ...examples,
      { role: 'system', content: 'Answer in two sentences at most.' },
      { role: 'user', content: 'Hello there.' },
    ])
    expect(requests[1]).toEqual([
      { role: 'system', content: `${systemPrompt}\n\nThe castle is haunted after dark.` },
      ...examples,
      { role: 'user', content: 'Hello there.' },
      { role: 'assistant', content: '{"emotion": "calm", "text": "reply 0"}' },
      { role: 'system', content: 'Answer in two sentences at most.' },
      { role: 'user', content: 'Is the castle safe at night?' },
    ])

    const exported = exportCharacterCard(characterSchema.parse(imported.character), { format: 'png' })
    const again = importCharacterCard(exported, 'image/png')
    expect({ ...again, cardJson: undefined, picture: undefined }).toEqual({
      ...imported,
      cardJson: undefined,
      picture: undefined,
    })
    expect(await converse(again, ['Hello there.', 'Is the castle safe at night?'])).toEqual(requests)
  })

  it('injects depth entries into the history and regex keys by pattern', async () => {
    const imported = importCharacterCard(makeCardV3(), 'application/json')
    const [first] = await converse(imported, ['The moonlight is bright in the glade.'])
    // Depth 2 before depth 1, counted back from the input through the history (the greeting); the
    // assistant entry joins the example dialogue's last reply, as consecutive roles are merged.
    expect(first!.slice(-5)).toEqual([
      { role: 'assistant', content: 'Only at night.\n\nThe moon is a sleeping goddess.' },
      { role: 'system', content: 'Seraphina planted the glade herself.' },
      {
        role: 'assistant',
        content: '{"emotion": "calm", "text": "*Seraphina kneels beside you.* You are safe now."}',
      },
      { role: 'system', content: 'Answer in two sentences at most.' },
      { role: 'user', content: 'The moonlight is bright in the glade.' },
    ])
  })

  it("keeps a character's lorebook and card prompts to that character's turns", async () => {
    const imported = importCharacterCard(makeCardV3(), 'application/json')
    server.reset()
    server.script({ text: '{"emotion":"平静"}ok' })
    const config = makeConfig({
      llm: { provider: 'custom', base_url: `${server.url}/v1`, model: 'golden-model', max_retries: 0 },
      characters: { [imported.id]: imported.character },
    })
    const charpipe = await createCharpipe(config)
    try {
      await collectEvents(
        charpipe.generate({ text: 'The castle at night, the glade, the moon.', session: 's' }),
      )
    } finally {
      await charpipe.close()
    }
    const sent = JSON.stringify((server.requests[0]!.body as { messages: unknown[] }).messages)
    expect(sent).toContain('你是小助手')
    for (const text of ['haunted', 'glade herself', 'sleeping goddess', 'Stay gentle', 'two sentences'])
      expect(sent).not.toContain(text)
  })
})
