/**
 * An English character over the real engine and the mock model server: the events on the wire
 * carry English emotion labels (`happy`, `calm`, …), those of its `emotions`, where a character that
 * sets none used to get the Chinese defaults (`平静`) whatever its language. A Chinese character
 * next to it keeps the documented Chinese labels.
 */
import { describe, expect, it } from 'vitest'
import { readSse } from './read-sse.js'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const servers = useServersOverMockModel()
const englishLabels = ['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy']
const chineseLabels = ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞']

async function emotionsOfTurn(character: string, text: string): Promise<string[]> {
  const response = await fetch(`${servers.server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session: `s-${character}`, character, text }),
  })
  expect(response.status).toBe(200)
  const emotions: string[] = []
  for (const message of await readSse(response)) {
    if (message.data === '[DONE]' || message.data === '') continue
    const event = JSON.parse(message.data) as { type: string; emotion?: string }
    expect(event.type).not.toBe('error')
    if (event.emotion !== undefined) emotions.push(event.emotion)
  }
  return emotions
}

describe('emotion labels on the wire follow the character language', () => {
  it('English labels for an English character, Chinese ones for a Chinese character', async () => {
    await servers.start([
      'character:',
      '  name: 小雪',
      '  persona: 温柔的猫娘，住在山里。',
      'characters:',
      '  seraphina:',
      '    name: Seraphina',
      '    persona: A gentle guardian of an enchanted forest, warm and protective.',
    ])
    const english = await emotionsOfTurn(
      'seraphina',
      'Hello! What a lovely morning, I am so glad to see you.',
    )
    expect(english.length).toBeGreaterThan(0)
    for (const emotion of english) expect(englishLabels).toContain(emotion)
    const chinese = await emotionsOfTurn('小雪', '你好呀，今天天气真好！')
    expect(chinese.length).toBeGreaterThan(0)
    for (const emotion of chinese) expect(chineseLabels).toContain(emotion)
  })
})
