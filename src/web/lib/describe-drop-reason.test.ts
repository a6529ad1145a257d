import { afterEach, describe, expect, it } from 'vitest'
import { describeDropReason } from './describe-drop-reason.js'
import { setLanguage } from './i18n.js'

afterEach(() => setLanguage('zh'))

describe('describeDropReason', () => {
  it('words the speaker rate and the loop guard in both languages', () => {
    setLanguage('en')
    expect(describeDropReason('speaker_rate')).toBe('this speaker was answered too often in the last minute')
    expect(describeDropReason('loop_guard')).toBe('looks like a bot loop: speaker cooling down')
    setLanguage('zh')
    expect(describeDropReason('speaker_rate')).toBe('此人一分钟内已被回复太多次')
    expect(describeDropReason('loop_guard')).toBe('疑似机器人对话循环，冷却中')
  })

  it('shows a reason it has no words for by its code, also one named like an Object method', () => {
    expect(describeDropReason('new_reason')).toBe('new_reason')
    expect(describeDropReason('constructor')).toBe('constructor')
  })
})
