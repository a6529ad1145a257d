import { describe, expect, it } from 'vitest'
import { createEmotionResolver } from './emotion-resolver.js'

describe('createEmotionResolver', () => {
  const emotions = ['开心', '平静']

  it('maps configured labels, aliases and aliases in any case; an unknown label becomes the default, logged once', () => {
    const logged: string[] = []
    const resolver = createEmotionResolver({
      defaultEmotion: '平静',
      emotions,
      aliases: { happy: '开心' },
      log: (level, message) => logged.push(`${level}:${message}`),
    })
    expect(resolver.resolve(' 开心 ', 'warn')).toBe('开心')
    expect(resolver.resolve('happy', 'warn')).toBe('开心')
    expect(resolver.resolve('HAPPY', 'warn')).toBe('开心')
    expect(resolver.resolve('困惑', 'warn')).toBe('平静')
    expect(resolver.resolve('<img src=x onerror=alert(1)>', 'warn')).toBe('平静')
    expect(resolver.resolve('困惑', 'warn')).toBe('平静')
    expect(logged).toHaveLength(2)
    expect(logged[0]).toMatch(/^warn:unknown emotion label "困惑"/)
  })

  it('logs an unknown label once across the replies of one config, again after a reload', () => {
    const logged: string[] = []
    const log = (_level: string, message: string) => logged.push(message)
    const aliases = { happy: '开心' }
    for (let reply = 0; reply < 3; reply++)
      createEmotionResolver({ defaultEmotion: '平静', emotions, aliases, log }).resolve('困惑', 'warn')
    expect(logged).toHaveLength(1)
    createEmotionResolver({ defaultEmotion: '平静', emotions, aliases: { ...aliases }, log }).resolve(
      '困惑',
      'warn',
    )
    expect(logged).toHaveLength(2)
  })

  it('uses a new alias table or label list (a reload) from the next reply on', () => {
    const log = () => {}
    const first = createEmotionResolver({ defaultEmotion: '平静', emotions, aliases: { happy: '开心' }, log })
    expect(first.find('happy')).toBe('开心')
    const reloaded = createEmotionResolver({
      defaultEmotion: '平静',
      emotions,
      aliases: { happy: '平静' },
      log,
    })
    expect(reloaded.find('happy')).toBe('平静')
    const relabelled = createEmotionResolver({
      defaultEmotion: '难过',
      emotions: ['难过'],
      aliases: { happy: '平静' },
      log,
    })
    expect(relabelled.find('开心')).toBeUndefined()
    expect(relabelled.find('难过')).toBe('难过')
  })
})
