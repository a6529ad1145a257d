import { describe, expect, it } from 'vitest'
import {
  addEventNote,
  addUserTurn,
  applyChatFrame,
  type ChatState,
  initialChatState,
  isReplyRunning,
  readTurnOutcome,
} from './apply-chat-frame.js'

const frames = (state: ChatState, list: Record<string, unknown>[], session = 'default') =>
  list.reduce<ChatState>(
    (current, frame) => applyChatFrame(current, { session, turn: 't1', ...frame } as never, session),
    state,
  )

describe('applyChatFrame', () => {
  it("shows a greeting that came with a turn as the character's reply before that turn", () => {
    let state = addUserTurn(initialChatState, { text: '你好', imageCount: 0 })
    state = frames(state, [
      { type: 'greeting', text: '欢迎！', emotion: '开心' },
      { type: 'llm_chunk', text: '你好呀' },
      { type: 'llm_done', text: '你好呀', emotion: '平静', interrupted: false },
    ])
    expect(state.turns.map((turn) => [turn.userText, turn.subtitles, turn.status])).toEqual([
      ['', '欢迎！', 'done'],
      ['你好', '你好呀', 'done'],
    ])
    const elsewhere = { type: 'greeting', session: 'other', turn: 't2', text: '欢迎！' } as never
    expect(applyChatFrame(initialChatState, elsewhere, 'default').turns).toEqual([])
  })

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
    // A new input is an interruption, not an error.
    expect(state.turns[0]?.errors).toEqual([])
    expect(state.turns[0]?.interruptedByNewInput).toBe(true)
    expect(readTurnOutcome(state.turns[0]!)).toBe('interrupted')
  })

  it('ends a failed turn as failed, never as done, keeping the code and status', () => {
    let state = addUserTurn(initialChatState, { text: 'a', imageCount: 0 })
    state = frames(state, [
      { type: 'llm_error', code: 'upstream_http', status: 401, message: '{"error":{"message":"bad key"}}' },
      { type: 'llm_done', text: '', emotion: '平静', interrupted: false },
    ])
    expect(state.turns[0]?.errors).toEqual([
      { code: 'upstream_http', status: 401, message: '{"error":{"message":"bad key"}}' },
    ])
    expect(readTurnOutcome(state.turns[0]!)).toBe('failed')
  })

  it('ends a barged-in turn (llm_done.interrupted) as interrupted', () => {
    let state = addUserTurn(initialChatState, { text: 'a', imageCount: 0 })
    state = frames(state, [
      { type: 'llm_chunk', text: '从前' },
      { type: 'llm_done', text: '从前', emotion: '平静', interrupted: true },
    ])
    expect(readTurnOutcome(state.turns[0]!)).toBe('interrupted')
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
    expect(state.errors).toEqual([{ code: 'bad_request', message: 'text: required' }])
  })

  it('keeps the turn report of llm_done: time to first sentence, total, tokens', () => {
    let state = addUserTurn(initialChatState, { text: '嗨', imageCount: 0 })
    state = applyChatFrame(
      state,
      {
        type: 'llm_done',
        session: 's',
        turn: 't1',
        text: '好。',
        emotion: '开心',
        interrupted: false,
        timing: { first_chunk_ms: 80.2, first_sentence_ms: 95.5, total_ms: 130 },
        usage: { prompt_tokens: 120, completion_tokens: 9, cached_tokens: 64 },
      },
      's',
    )
    expect(state.turns[0]!.report).toEqual({
      firstSentenceMs: 95.5,
      totalMs: 130,
      promptTokens: 120,
      completionTokens: 9,
      cachedTokens: 64,
    })
    const bare = applyChatFrame(
      addUserTurn(initialChatState, { text: '嗨', imageCount: 0 }),
      { type: 'llm_done', session: 's', turn: 't2', text: '', emotion: '平静', interrupted: false },
      's',
    )
    expect(bare.turns[0]!.report).toBeUndefined()
  })

  it('keeps a thought apart from the reply and marks a silent turn', () => {
    let state = addUserTurn(initialChatState, { text: '嗯', imageCount: 0 })
    state = frames(state, [
      { type: 'llm_thought', text: '他好像累了。' },
      { type: 'llm_emotion', emotion: '平静' },
      { type: 'llm_done', text: '', emotion: '平静', interrupted: false, silent: true },
    ])
    expect(state.turns[0]).toMatchObject({
      thought: '他好像累了。',
      silent: true,
      subtitles: '',
      status: 'done',
    })
    expect(state.turns[0]?.sentences).toEqual([])
    state = addUserTurn(state, { text: '在吗', imageCount: 0 })
    state = applyChatFrame(
      state,
      { type: 'llm_done', session: 'default', turn: 't2', text: '在。', interrupted: false },
      'default',
    )
    expect(state.turns[1]?.silent).toBeUndefined()
  })

  it("gives a say turn a turn of its own, never the one waiting for the user's input", () => {
    let state = addUserTurn(initialChatState, { text: '你好', imageCount: 0 })
    const say = { session: 'default', turn: 's1', trigger: 'say' }
    state = applyChatFrame(
      state,
      { type: 'llm_sentence', ...say, index: 0, text: '大家好！', emotion: '开心' },
      'default',
    )
    state = applyChatFrame(
      state,
      { type: 'llm_done', ...say, text: '大家好！', interrupted: false },
      'default',
    )
    expect(state.turns.map((turn) => [turn.id, turn.userText, turn.trigger, turn.subtitles])).toEqual([
      [undefined, '你好', undefined, ''],
      ['s1', '', 'say', '大家好！'],
    ])
    state = frames(state, [{ type: 'llm_chunk', text: '你好呀', trigger: 'input' }])
    expect(state.turns[0]).toMatchObject({ id: 't1', subtitles: '你好呀', trigger: 'input' })
  })

  it("adds the owner's event as a note that no turn's events land on", () => {
    let state = addEventNote(initialChatState, '门铃响了')
    state = applyChatFrame(
      state,
      { type: 'llm_chunk', session: 'default', turn: 'e1', text: '谁呀？' },
      'default',
    )
    expect(state.turns.map((turn) => [turn.eventText, turn.subtitles])).toEqual([
      ['门铃响了', ''],
      [undefined, '谁呀？'],
    ])
  })
})
