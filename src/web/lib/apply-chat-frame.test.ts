import { describe, expect, it } from 'vitest'
import {
  addUserTurn,
  applyChatFrame,
  type ChatState,
  initialChatState,
  isReplyRunning,
} from './apply-chat-frame.js'

const frames = (state: ChatState, list: Record<string, unknown>[], session = 'default') =>
  list.reduce<ChatState>(
    (current, frame) => applyChatFrame(current, { session, turn: 't1', ...frame } as never, session),
    state,
  )

describe('applyChatFrame', () => {
  it('grows subtitles chunk by chunk, lists sentences with emotions and closes on llm_done', () => {
    let state = addUserTurn(initialChatState, { text: '你好', imageCount: 0 })
    state = frames(state, [
      { type: 'llm_emotion', emotion: '开心' },
      { type: 'llm_chunk', text: '你好' },
      { type: 'llm_chunk', text: '呀！' },
    ])
    expect(state.turns[0]).toMatchObject({ id: 't1', subtitles: '你好呀！', status: 'streaming' })
    expect(isReplyRunning(state)).toBe(true)
    state = frames(state, [
      { type: 'llm_sentence', index: 0, text: '你好呀！', emotion: '开心' },
      { type: 'llm_done', text: '你好呀！', emotion: '开心', interrupted: false },
    ])
    expect(state.turns[0]?.sentences).toEqual([{ index: 0, text: '你好呀！', emotion: '开心' }])
    expect(state.turns[0]).toMatchObject({ status: 'done', interrupted: false })
    expect(state.emotion).toBe('开心')
    expect(isReplyRunning(state)).toBe(false)
  })

  it('keeps turns apart by id, marks interruptions and errors', () => {
    let state = addUserTurn(initialChatState, { text: 'a', imageCount: 0 })
    state = frames(state, [{ type: 'llm_chunk', text: 'x' }])
    state = addUserTurn(state, { text: 'b', imageCount: 0 })
    state = frames(state, [
      { type: 'llm_error', code: 'interrupted_by_new_input', message: 'a newer input', status: 409 },
      { type: 'llm_done', text: 'x', emotion: '平静', interrupted: true },
    ])
    state = applyChatFrame(state, { type: 'llm_chunk', session: 'default', turn: 't2', text: 'y' }, 'default')
    expect(state.turns.map((turn) => [turn.userText, turn.id, turn.status])).toEqual([
      ['a', 't1', 'done'],
      ['b', 't2', 'streaming'],
    ])
    expect(state.turns[0]?.interrupted).toBe(true)
    expect(state.turns[0]?.errors[0]).toContain('interrupted_by_new_input')
  })

  it('ignores other sessions and collects error frames', () => {
    let state = addUserTurn(initialChatState, { text: 'a', imageCount: 0 })
    state = applyChatFrame(
      state,
      { type: 'llm_chunk', session: 'elsewhere', turn: 't9', text: 'z' },
      'default',
    )
    expect(state.turns[0]?.subtitles).toBe('')
    state = applyChatFrame(
      state,
      { type: 'error', code: 'bad_request', message: 'text: required' },
      'default',
    )
    expect(state.errors).toEqual(['bad_request: text: required'])
  })
})
