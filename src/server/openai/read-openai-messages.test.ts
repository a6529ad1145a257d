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

  it('with tools of its own: earlier calls and results in the history, those after the input as tool rounds', () => {
    const call = (id: string) => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
    })
    const messages = [
      { role: 'user', content: 'Weather in Oslo?' },
      call('a'),
      { role: 'tool', tool_call_id: 'a', content: 'snow' },
      { role: 'assistant', content: 'Snowing.' },
      { role: 'user', content: 'And Rome?' },
      call('b'),
      { role: 'tool', tool_call_id: 'b', content: 'sun' },
    ]
    const toolCalls = (id: string) => [{ id, name: 'get_weather', arguments: { city: 'Rome' } }]
    expect(readOpenAIMessages(messages, { withTools: true })).toEqual({
      input: { text: 'And Rome?' },
      clientPrompt: {
        history: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: '', toolCalls: toolCalls('a') },
          { role: 'tool', content: 'snow', toolCallId: 'a' },
          { role: 'assistant', content: 'Snowing.' },
        ],
        toolRounds: [
          { role: 'assistant', content: '', toolCalls: toolCalls('b') },
          { role: 'tool', content: 'sun', toolCallId: 'b' },
        ],
      },
    })
    // Without tools of its own, the tool traffic stays out, as before.
    expect(readOpenAIMessages(messages)?.clientPrompt).toEqual({
      history: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: 'Snowing.' },
      ],
    })
  })
})
