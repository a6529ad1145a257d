import { describe, expect, it } from 'vitest'
import { messageText } from '../shared/messages.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf, typesOf } from '../testing/turn-events.js'
import type { Tool } from '../tools/types.js'
import { createCharpipe } from './create-charpipe.js'

const lamp = {
  name: 'set_lamp',
  description: 'Turns the room lamp on or off',
  parameters: { type: 'object', properties: { on: { type: 'boolean' } } },
}
let serverRuns = 0
const clock: Tool = {
  name: 'clock',
  description: 'The time',
  parameters: { type: 'object' },
  execute: () => {
    serverRuns++
    return '12:00'
  },
}

describe('client tools (TurnInput.clientTools)', () => {
  it('offers them beside the server tools; a call of one ends the turn unrun, as a tool_call marked client', async () => {
    const provider = createScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'set_lamp', arguments: { on: true } }] },
    ])
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider,
      tools: [clock],
    })
    const events = await collectEvents(
      charpipe.generate({ text: 'Lights on', stateless: true, clientTools: [lamp] }),
    )
    expect(provider.requests[0]!.tools?.map((tool) => tool.name)).toEqual(['clock', 'set_lamp'])
    expect(typesOf(events)).toEqual(['tool_call', 'llm_done'])
    expect(events[0]).toMatchObject({ id: 'c1', name: 'set_lamp', arguments: { on: true }, client: true })
    // Nothing ran: not the client's tool, nor a second model call.
    expect(provider.requests).toHaveLength(1)
    expect(serverRuns).toBe(0)
    expect(doneOf(events).interrupted).toBe(false)
  })

  it("continues with the client's tool rounds after the input, natively", async () => {
    const provider = createScriptedProvider([{ chunks: ['The lamp is on.'] }])
    const charpipe = await createCharpipe(makeConfig(), { parts: createFakeParts(), provider })
    const events = await collectEvents(
      charpipe.generate({
        text: 'Lights on',
        stateless: true,
        clientTools: [lamp],
        clientPrompt: {
          toolRounds: [
            {
              role: 'assistant',
              content: '',
              toolCalls: [{ id: 'c1', name: 'set_lamp', arguments: { on: true } }],
            },
            { role: 'tool', content: 'done', toolCallId: 'c1' },
          ],
        },
      }),
    )
    expect(doneOf(events).text).toBe('The lamp is on.')
    const sent = provider.requests[0]!.messages.slice(-3)
    expect(sent[0]).toMatchObject({ role: 'user', source: 'input' })
    expect(sent[1]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'c1', name: 'set_lamp' }] })
    expect(sent[2]).toMatchObject({ role: 'tool', toolCallId: 'c1', content: 'done' })
  })

  it('describes them in the prompt and gives their results as words to a model without native calls', async () => {
    const provider = createScriptedProvider([{ chunks: ['The lamp is on.'] }])
    const config = makeConfig({ llm: { function_calling: false } })
    const charpipe = await createCharpipe(config, { parts: createFakeParts(), provider })
    await collectEvents(
      charpipe.generate({
        text: 'Lights on',
        stateless: true,
        clientTools: [lamp],
        clientPrompt: {
          toolRounds: [
            {
              role: 'assistant',
              content: '',
              toolCalls: [{ id: 'c1', name: 'set_lamp', arguments: { on: true } }],
            },
            { role: 'tool', content: 'done', toolCallId: 'c1' },
          ],
        },
      }),
    )
    const request = provider.requests[0]!
    expect(request.tools).toBeUndefined()
    expect(messageText(request.messages[0]!)).toContain('- set_lamp: Turns the room lamp on or off')
    expect(request.messages.some((message) => message.role === 'tool' || message.toolCalls)).toBe(false)
    expect(messageText(request.messages.at(-1)!)).toBe('[工具结果 set_lamp] done')
  })

  it('refuses a client tool without a usable name', async () => {
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider: createScriptedProvider([]),
    })
    const events = await collectEvents(
      charpipe.generate({ text: 'x', clientTools: [{ name: 'bad name', description: '', parameters: {} }] }),
    )
    expect(events[0]).toMatchObject({ type: 'llm_error', code: 'bad_request' })
    expect((events[0] as { message: string }).message).toContain('clientTools.0.name')
  })
})

describe('a tool choice (TurnInput.toolChoice)', () => {
  it('asks the model for a call until a tool has run, then lets it answer in words', async () => {
    const provider = createScriptedProvider([
      { toolCalls: [{ id: 's1', name: 'clock', arguments: {} }] },
      { chunks: ['It is noon.'] },
    ])
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider,
      tools: [clock],
    })
    const events = await collectEvents(
      charpipe.generate({ text: 'Time?', stateless: true, clientTools: [lamp], toolChoice: 'required' }),
    )
    expect(provider.requests.map((request) => request.toolChoice)).toEqual(['required', undefined])
    expect(doneOf(events).text).toBe('It is noon.')
  })

  it('names a tool that is offered; one that is not is left out', async () => {
    const provider = createScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'set_lamp', arguments: { on: true } }] },
      { chunks: ['Hm.'] },
    ])
    const charpipe = await createCharpipe(makeConfig(), { parts: createFakeParts(), provider })
    await collectEvents(
      charpipe.generate({
        text: 'Lights',
        stateless: true,
        clientTools: [lamp],
        toolChoice: { name: 'set_lamp' },
      }),
    )
    await collectEvents(
      charpipe.generate({
        text: 'Lights',
        stateless: true,
        clientTools: [lamp],
        toolChoice: { name: 'fan' },
      }),
    )
    expect(provider.requests.map((request) => request.toolChoice)).toEqual([{ name: 'set_lamp' }, undefined])
  })

  it('is a line of the tool prompt for a model without native calls', async () => {
    const provider = createScriptedProvider([{ chunks: ['Hm.'] }])
    const config = makeConfig({ llm: { function_calling: false } })
    const charpipe = await createCharpipe(config, { parts: createFakeParts(), provider })
    await collectEvents(
      charpipe.generate({
        text: 'Lights',
        stateless: true,
        clientTools: [lamp],
        toolChoice: { name: 'set_lamp' },
      }),
    )
    expect(provider.requests[0]!.toolChoice).toBeUndefined()
    expect(messageText(provider.requests[0]!.messages[0]!)).toContain('这一步必须调用工具 set_lamp')
  })

  it('refuses a tool choice that is neither "required" nor a tool name', async () => {
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider: createScriptedProvider([]),
    })
    const events = await collectEvents(
      charpipe.generate({ text: 'x', toolChoice: 'always' as unknown as 'required' }),
    )
    expect(events[0]).toMatchObject({ type: 'llm_error', code: 'bad_request' })
    expect((events[0] as { message: string }).message).toContain('toolChoice')
  })
})
