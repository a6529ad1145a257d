import { describe, expect, it } from 'vitest'
import { chooseMockEmotion } from './choose-mock-emotion.js'
import { composeMockReply } from './compose-mock-reply.js'

const chinese = ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞']
const english = ['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy']

describe("the mock's emotion, read from the user's words", () => {
  it('answers a greeting or thanks happy, and other moods by their words, in either language', () => {
    expect(chooseMockEmotion('Hello there! How are you?', chinese)).toBe('开心')
    expect(chooseMockEmotion('你好呀', chinese)).toBe('开心')
    expect(chooseMockEmotion('Thanks so much', english)).toBe('happy')
    expect(chooseMockEmotion('I am so tired today', english)).toBe('sad')
    expect(chooseMockEmotion('这个好可怕', chinese)).toBe('害怕')
    expect(chooseMockEmotion('What is the capital of France', english)).toBe('calm')
  })

  it("keeps to the character's own emotions, the same input giving the same one", () => {
    expect(chooseMockEmotion('Hello', ['害羞'])).toBe('害羞')
    const own = ['beep', 'boop', 'buzz']
    expect(own).toContain(chooseMockEmotion('hello', own))
    expect(chooseMockEmotion('hello', own)).toBe(chooseMockEmotion('hello', own))
  })

  it('says words that fit the emotion it names', () => {
    for (let round = 0; round < 20; round++) {
      const greeting = composeMockReply({ userText: `Hi! Nice to meet you, friend number ${round}.` })
      expect(greeting.emotion).toBe('happy')
      expect(greeting.text).toContain("That's great!")
      expect(greeting.text).not.toMatch(/Hmph|won't do/)
    }
    const english = composeMockReply({ userText: 'Hello!', emotions: ['happy', 'calm'] })
    expect(english).toMatchObject({ emotion: 'happy' })
    expect(english.text).toContain("That's great!")
  })

  it('says a configured emotion named after an Object.prototype member as its name', () => {
    // The labels are the character's configured `emotions`: `toString` is no default emotion.
    const reply = composeMockReply({ userText: 'Hello!', emotions: ['toString'] })
    expect(reply.emotion).toBe('toString')
    expect(reply.text).toContain('toString')
    expect(reply.text).not.toContain('native code')
  })
})
