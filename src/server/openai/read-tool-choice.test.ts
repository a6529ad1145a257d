import { describe, expect, it } from 'vitest'
import { readToolChoice } from './read-tool-choice.js'

const tool = (name: string) => ({ name, description: '', parameters: { type: 'object' } })
const tools = [tool('get_weather'), tool('get_time')]
const names = (result: ReturnType<typeof readToolChoice>) =>
  result.ok ? result.tools.map((offered) => offered.name) : result.message

describe('readToolChoice', () => {
  it.each([
    ['absent', undefined, ['get_weather', 'get_time'], undefined, 'auto'],
    ['auto', 'auto', ['get_weather', 'get_time'], undefined, 'auto'],
    ['none', 'none', [], undefined, 'none'],
    ['required', 'required', ['get_weather', 'get_time'], 'required', 'required'],
    [
      'a function named as the Responses API does',
      { type: 'function', name: 'get_time' },
      ['get_weather', 'get_time'],
      { name: 'get_time' },
      { type: 'function', name: 'get_time' },
    ],
    [
      'a function named as Chat Completions does',
      { type: 'function', function: { name: 'get_time' } },
      ['get_weather', 'get_time'],
      { name: 'get_time' },
      { type: 'function', name: 'get_time' },
    ],
    [
      'allowed_tools, required',
      { type: 'allowed_tools', tools: [{ type: 'function', name: 'get_time' }], mode: 'required' },
      ['get_time'],
      'required',
      { type: 'allowed_tools', tools: [{ type: 'function', name: 'get_time' }], mode: 'required' },
    ],
    [
      'allowed_tools without a mode',
      { type: 'allowed_tools', tools: [{ type: 'function', name: 'get_time' }] },
      ['get_time'],
      undefined,
      { type: 'allowed_tools', tools: [{ type: 'function', name: 'get_time' }], mode: 'auto' },
    ],
  ])('%s', (_name, choice, offered, required, echo) => {
    const result = readToolChoice(tools, choice as Parameters<typeof readToolChoice>[1])
    expect(names(result)).toEqual(offered)
    expect(result).toMatchObject({ ok: true, echo })
    expect(result.ok && result.required).toEqual(required ?? undefined)
  })

  it.each([
    ['required without tools', [], 'required', '"required" needs at least one tool'],
    ['an unknown mode', tools, 'always', 'one of none, auto, required'],
    ['a function not in tools', tools, { type: 'function', name: 'fly' }, 'no function named fly in tools'],
    ['a function without a name', tools, { type: 'function' }, "needs the function's name"],
    ['a hosted tool', tools, { type: 'web_search' }, 'type web_search is not supported'],
    ['allowed_tools naming none', tools, { type: 'allowed_tools', tools: [] }, 'name at least one tool'],
    [
      'allowed_tools naming an unknown tool',
      tools,
      { type: 'allowed_tools', tools: [{ type: 'function', name: 'fly' }] },
      'tool_choice.tools.0: no function named fly',
    ],
  ])('refuses %s', (_name, offered, choice, message) => {
    const result = readToolChoice(offered, choice as Parameters<typeof readToolChoice>[1])
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toContain(message)
  })
})
