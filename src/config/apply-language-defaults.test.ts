import { describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'

const quiet = { warn() {}, info() {}, debug() {}, error() {} } as never

describe('language defaults of a config', () => {
  it('gives a Chinese machine exactly the documented default character', () => {
    const { config } = parseConfig({}, { machineLanguage: 'zh', logger: quiet })
    expect(config.character).toMatchObject({
      name: '小助手',
      default_emotion: '平静',
      emotions: ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞'],
      emotion_aliases: {
        happy: '开心',
        joy: '开心',
        neutral: '平静',
        calm: '平静',
        sad: '难过',
        angry: '生气',
        surprised: '惊讶',
        fear: '害怕',
        shy: '害羞',
      },
      user_emotion_map: {
        happy: '愉快',
        sad: '难过',
        angry: '生气',
        surprised: '惊讶',
        fearful: '害怕',
        disgusted: '厌恶',
      },
    })
  })

  it('gives an English machine an English default character with English emotion labels', () => {
    const { config } = parseConfig({ llm: { provider: 'mock' } }, { machineLanguage: 'en', logger: quiet })
    expect(config.character).toMatchObject({
      name: 'Assistant',
      default_emotion: 'calm',
      emotions: ['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy'],
      emotion_aliases: { joy: 'happy', neutral: 'calm', fear: 'afraid' },
    })
  })

  it('gives English characters English labels on any machine, and keeps labels a character sets', () => {
    const { config } = parseConfig(
      {
        character: { name: '小雪', persona: '温柔的猫娘' },
        characters: {
          seraphina: { name: 'Seraphina', persona: 'A guardian of the forest glade, gentle and wise.' },
          pinned: {
            name: 'Pinned',
            persona: 'A robot.',
            emotions: ['beep', 'boop'],
            default_emotion: 'beep',
          },
          told: { name: '小明', language: 'en' },
        },
      },
      { machineLanguage: 'en', logger: quiet },
    )
    expect(config.character.emotions[0]).toBe('开心')
    expect(config.characters.seraphina).toMatchObject({
      default_emotion: 'calm',
      emotions: expect.arrayContaining(['happy']),
    })
    expect(config.characters.pinned).toMatchObject({ default_emotion: 'beep', emotions: ['beep', 'boop'] })
    expect(config.characters.told!.default_emotion).toBe('calm')
  })

  it('leaves a parsed config as it is when parsed again (a reload)', () => {
    const first = parseConfig({}, { machineLanguage: 'zh', logger: quiet }).config
    const again = parseConfig(first, { machineLanguage: 'en', logger: quiet }).config
    expect(again.character.name).toBe('小助手')
    expect(again.character.default_emotion).toBe('平静')
  })
})
