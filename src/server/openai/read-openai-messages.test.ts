import { describe, expect, it } from 'vitest'
import { readOpenAIMessages } from './read-openai-messages.js'

describe('readOpenAIMessages', () => {
  it('one user message: the input alone, the server keeps the conversation', () => {
    expect(readOpenAIMessages([{ role: 'user', content: 'hi' }])).toEqual({ input: { text: 'hi' } })
  })

  it("more: the client's system prompt and history, in order, without tool traffic", () => {
    const turn = readOpenAIMessages([
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: [{ type: 'text', text: 'Speak French.' }] },
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1' }] },
      { role: 'tool', content: '4' },
      { role: 'assistant', content: 'Four.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ])
    expect(turn).toEqual({
      input: { text: 'And this?', images: ['https://example.com/a.png'] },
      clientPrompt: {
        system: 'Be brief.\n\nSpeak French.',
        history: [
          { role: 'user', content: 'What is 2+2?' },
          { role: 'assistant', content: 'Four.' },
        ],
      },
    })
  })

  it("history without a system prompt keeps the character's; no user message is no turn", () => {
    expect(
      readOpenAIMessages([
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Hi' },
      ]),
    ).toEqual({
      input: { text: 'Hi' },
      clientPrompt: { history: [{ role: 'assistant', content: 'Hello!' }] },
    })
    expect(readOpenAIMessages([{ role: 'system', content: 'x' }])).toBeUndefined()
  })
})
