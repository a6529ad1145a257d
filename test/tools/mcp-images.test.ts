/**
 * Images in MCP tool results take the vision path, end to end: a real MCP server (official SDK,
 * stdio) answers a caption and a PNG; the mock model server records the next model request. A vision
 * model gets the image itself (OpenAI: a user message after the tool messages; Anthropic: inside the
 * `tool_result` block; prompt fallback: in the results message); a model without vision gets the
 * description of `llm.vision_describer`, or the placeholder when there is none.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'
import { testImage } from './mcp-test-tools.mjs'

const stdioScript = fileURLToPath(new URL('./mcp-stdio-server.mjs', import.meta.url))
const imageUri = `data:image/png;base64,${testImage}`
const placeholder = '[image image/png not shown]'

let model: MockModelServer
const opened: Charpipe[] = []

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(() => model.close())
beforeEach(() => model.reset())
afterEach(async () => {
  for (const charpipe of opened.splice(0)) await charpipe.close()
})

const tools = {
  mcp_servers: { local: { command: process.execPath, args: [stdioScript], timeout_ms: 10_000 } },
}

async function open(llm: Record<string, unknown>) {
  const charpipe = await createCharpipe(
    makeConfig({
      llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'chat-model', max_retries: 0, ...llm },
      tools,
    }),
  )
  opened.push(charpipe)
  return charpipe
}

type Message = { role: string; content: unknown }
const messagesOf = (index: number) => (model.requests[index]!.body as { messages: Message[] }).messages

function toolResultOf(events: CharpipeEvent[]) {
  return (events.find((event) => event.type === 'tool_result') as { result: unknown } | undefined)?.result
}

describe('images in MCP tool results', () => {
  it('a vision model (OpenAI-compatible) gets the image in a user message after the tool messages', async () => {
    const charpipe = await open({ vision: true })
    model.script([{ toolCalls: [{ id: 'c1', name: 'shot', arguments: {} }] }, { text: 'A red dot.' }])
    const events = await collectEvents(charpipe.generate({ text: 'what is on the screen?' }))
    expect(doneOf(events).text).toBe('A red dot.')
    // Events carry the text, the image as its placeholder.
    expect(toolResultOf(events)).toBe(`the screen:\n${placeholder}`)
    const messages = messagesOf(1)
    const toolIndex = messages.findIndex((message) => message.role === 'tool')
    expect(messages[toolIndex]!.content).toBe('the screen:\n[image 1: image/png]')
    expect(messages[toolIndex + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images from the tool results above:' },
        { type: 'image_url', image_url: { url: imageUri } },
      ],
    })
  })

  it('a vision model (Anthropic) gets the image inside the tool_result block', async () => {
    const charpipe = await open({
      provider: 'anthropic',
      base_url: model.url,
      api_key: 'sk-ant-test-0000',
      model: 'claude',
      vision: true,
    })
    model.script([{ toolCalls: [{ id: 'c1', name: 'shot', arguments: {} }] }, { text: 'A red dot.' }])
    const events = await collectEvents(charpipe.generate({ text: 'what is on the screen?' }))
    expect(doneOf(events).text).toBe('A red dot.')
    const last = messagesOf(1).at(-1) as { role: string; content: Record<string, unknown>[] }
    expect(last.role).toBe('user')
    expect(last.content).toContainEqual({
      type: 'tool_result',
      tool_use_id: 'c1',
      content: [
        { type: 'text', text: 'the screen:\n[image 1: image/png]' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: testImage } },
      ],
    })
  })

  it('a vision model with function_calling off gets the image in the results message', async () => {
    const charpipe = await open({ vision: true, function_calling: false })
    model.script([{ text: '{"tool_call": {"name": "shot", "arguments": {}}}' }, { text: 'A red dot.' }])
    const events = await collectEvents(charpipe.generate({ text: 'what is on the screen?' }))
    expect(doneOf(events).text).toBe('A red dot.')
    const last = messagesOf(1).at(-1) as { role: string; content: { type: string }[] }
    expect(last.role).toBe('user')
    expect(JSON.stringify(last.content[0])).toContain('[image 1: image/png]')
    expect(last.content[1]).toEqual({ type: 'image_url', image_url: { url: imageUri } })
  })

  it('a model without vision gets the description of the vision describer', async () => {
    const charpipe = await open({
      vision: false,
      vision_describer: { provider: 'custom', base_url: `${model.url}/v1`, model: 'vision-model' },
    })
    model.script([
      { toolCalls: [{ id: 'c1', name: 'shot', arguments: {} }] },
      { text: '一个红色的小点' },
      { text: 'A red dot.' },
    ])
    const events = await collectEvents(charpipe.generate({ text: 'what is on the screen?' }))
    expect(doneOf(events).text).toBe('A red dot.')
    expect(model.requests).toHaveLength(3)
    const described = model.requests[1]!.body as { model: string }
    expect(described.model).toBe('vision-model')
    expect(JSON.stringify(described)).toContain(imageUri)
    const tool = messagesOf(2).find((message) => message.role === 'tool')
    expect(tool?.content).toBe('the screen:\n[图片:一个红色的小点]')
    expect(JSON.stringify(model.requests[2]!.body)).not.toContain(testImage)
  })

  it('a model with neither vision nor a describer gets the placeholder', async () => {
    const charpipe = await open({ vision: false })
    model.script([{ toolCalls: [{ id: 'c1', name: 'shot', arguments: {} }] }, { text: 'I cannot see it.' }])
    await collectEvents(charpipe.generate({ text: 'what is on the screen?' }))
    expect(model.requests).toHaveLength(2)
    const tool = messagesOf(1).find((message) => message.role === 'tool')
    expect(tool?.content).toBe(`the screen:\n${placeholder}`)
    expect(JSON.stringify(model.requests[1]!.body)).not.toContain(testImage)
  })
})
