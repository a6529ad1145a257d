import { describe, expect, it } from 'vitest'
import { convertEmotionToAiri } from './convert-emotion-to-airi.js'
import { createEmotionDialectWriter, type EmotionDialect } from './create-emotion-dialect-writer.js'

// AIRI's own parser: its marker splitter hands each `<|…|>` alone to this regex (queues.ts).
const airiActPattern = /<\|ACT\s*(?::\s*)?(\{[\s\S]*\})\|>/i
const readActTokens = (content: string) =>
  (content.match(/<\|[\s\S]*?\|>/g) ?? []).map((special) => {
    const match = airiActPattern.exec(special)
    expect(match, special).not.toBeNull()
    return JSON.parse(match![1]!).emotion as { name: string; intensity: number }
  })

type Step = { emotion: string } | { text: string }
/** The events as the engine sends them: a sentence's display text, then its emotion. */
const write = (dialect: EmotionDialect, steps: Step[], emotionNames = {}, finalEmotion = '平静') => {
  const writer = createEmotionDialectWriter({ dialect, emotionNames, defaultEmotion: '平静' })
  let content = ''
  for (const step of steps) {
    content += 'emotion' in step ? writer.writeEmotion(step.emotion) : writer.writeText(step.text)
  }
  content += writer.end(finalEmotion)
  return { writer, content }
}

const reply: Step[] = [
  { text: 'Hello! ' },
  { emotion: '开心' },
  { text: 'Nice to see you.' },
  { emotion: '开心' },
  { text: ' But I missed you.' },
  { emotion: '难过' },
]

describe('createEmotionDialectWriter', () => {
  it('act: a token AIRI parses at the start and at each change, names mapped by meaning', () => {
    const { content } = write('act', reply)
    expect(readActTokens(content)).toEqual([
      { name: 'happy', intensity: 1 },
      { name: 'sad', intensity: 1 },
    ])
    expect(content.replace(/<\|[\s\S]*?\|>/g, '')).toBe('Hello! Nice to see you. But I missed you.')
    expect(content.startsWith('<|ACT:{')).toBe(true)
  })

  it('act: the default emotion opens a reply that never names one; emotion_names wins over meaning', () => {
    expect(readActTokens(write('act', [{ text: 'Hi.' }]).content)).toEqual([
      { name: 'neutral', intensity: 1 },
    ])
    const { content } = write('act', reply, { 开心: 'cool' })
    expect(readActTokens(content).map((token) => token.name)).toEqual(['cool', 'sad'])
  })

  it('bracket: [name] before the text it applies to, the client names from emotion_names', () => {
    const { content } = write('bracket', reply, { 开心: 'joy', 难过: 'sadness' })
    expect(content).toBe('[joy]Hello! Nice to see you.[sadness] But I missed you.')
  })

  it('bracket and act: a label named after an Object.prototype member is written as itself', () => {
    // The label is one of the character's configured emotions; `emotion_names` has no such key.
    expect(write('bracket', [{ text: 'Hi.' }, { emotion: 'toString' }]).content).toBe('[toString]Hi.')
    expect(write('bracket', [{ text: 'Hi.' }, { emotion: 'constructor' }], { happy: 'joy' }).content).toBe(
      '[constructor]Hi.',
    )
    expect(readActTokens(write('act', [{ text: 'Hi.' }, { emotion: 'valueOf' }]).content)).toEqual([
      { name: 'neutral', intensity: 1 },
    ])
  })

  it('a repeated emotion writes no second tag; a change to the same client name neither', () => {
    const steps: Step[] = [
      { text: 'a' },
      { emotion: '平静' },
      { text: 'b' },
      { emotion: '开心' },
      { text: 'c' },
    ]
    expect(write('bracket', steps, { 开心: 'calm', 平静: 'calm' }).content).toBe('[calm]abc')
  })

  it('field and none leave the text alone; only field uses the field', () => {
    for (const dialect of ['field', 'none'] as const) {
      const { writer, content } = write(dialect, reply)
      expect(content).toBe('Hello! Nice to see you. But I missed you.')
      expect(writer.usesField).toBe(dialect === 'field')
    }
  })

  it('writeWhole: one emotion → its tag and the final text; changes → the streamed content; nothing streamed → the final emotion', () => {
    const single = write('act', [{ text: 'raw' }, { emotion: '开心' }])
    expect(single.writer.writeWhole('final text', single.content, '开心')).toBe(
      '<|ACT:{"emotion":{"name":"happy","intensity":1}}|>final text',
    )
    const changed = write('bracket', reply)
    expect(changed.writer.writeWhole('ignored', changed.content, '难过')).toBe(changed.content)
    const replayed = createEmotionDialectWriter({ dialect: 'bracket', defaultEmotion: '平静' })
    expect(replayed.writeWhole('stored reply', '', '生气')).toBe('[生气]stored reply')
  })
})

describe('convertEmotionToAiri', () => {
  it.each([
    ['开心', 'happy'],
    ['平静', 'neutral'],
    ['难过', 'sad'],
    ['生气', 'angry'],
    ['惊讶', 'surprised'],
    ['害羞', 'awkward'],
    ['Curious', 'curious'],
    ['思考', 'think'],
    ['something else', 'neutral'],
  ])('%s → %s', (label, name) => {
    expect(convertEmotionToAiri(label)).toBe(name)
  })
})
