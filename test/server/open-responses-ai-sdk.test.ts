/**
 * `/v1/responses` with the Vercel AI SDK's Open Responses provider (`@ai-sdk/open-responses` 1.0.x,
 * `ai` 6) over the real engine and the mock model server: `generateText` and `streamText` read the
 * reply, its usage and its finish; a tool the SDK runs is called and its result continues the
 * turn; a failure arrives as the SDK's API error with the server's message.
 */
import { createOpenResponses } from '@ai-sdk/open-responses'
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()
const start = () => suite.start(['character:', '  name: Mika', '  persona: A cheerful barista.'])

const mika = () =>
  createOpenResponses({ name: 'charpipe', url: `${suite.server.url}/v1/responses`, apiKey: 'unused' })('mika')

describe('@ai-sdk/open-responses', () => {
  it('generateText reads the reply, its usage and a stop finish', async () => {
    await start()
    suite.model.script({ text: 'Hello from the café.' })
    const result = await generateText({ model: mika(), prompt: 'Hi', maxRetries: 0 })
    expect(result.text).toBe('Hello from the café.')
    expect(result.finishReason).toBe('stop')
    expect(result.usage.inputTokens).toBeGreaterThan(0)
    expect(result.usage.outputTokens).toBeGreaterThan(0)
  })

  it('streamText streams the reply', async () => {
    await start()
    suite.model.script({ text: 'One, two, three, four.', chunkSize: 3 })
    const result = streamText({ model: mika(), prompt: 'Count', maxRetries: 0 })
    let text = ''
    for await (const delta of result.textStream) text += delta
    expect(text).toBe('One, two, three, four.')
    expect(await result.finishReason).toBe('stop')
  })

  it('runs a tool of the SDK and continues the turn with its result', async () => {
    await start()
    suite.model.script([
      { text: '', toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { location: 'Paris' } }] },
      { text: 'Sunny in Paris.' },
    ])
    const asked: string[] = []
    const result = await generateText({
      model: mika(),
      prompt: 'Weather in Paris?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: {
        get_weather: tool({
          description: 'The weather of a city',
          inputSchema: z.object({ location: z.string() }),
          execute: async ({ location }) => {
            asked.push(location)
            return { sky: 'sunny' }
          },
        }),
      },
    })
    expect(asked).toEqual(['Paris'])
    expect(result.text).toBe('Sunny in Paris.')
    const sent = (suite.model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] })
      .messages
    expect(sent.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('sunny') })
  })

  it("reports a failure as an API error with the server's error object", async () => {
    await start()
    suite.model.script({ status: 401, body: { error: { message: 'invalid key' } } })
    const failure = await generateText({ model: mika(), prompt: 'Hi', maxRetries: 0 }).catch((error) => error)
    expect(APICallError.isInstance(failure)).toBe(true)
    expect((failure as APICallError).statusCode).toBe(502)
    const body = JSON.parse((failure as APICallError).responseBody!)
    expect(body.error).toMatchObject({ type: 'upstream_http', param: '', code: 'upstream_http' })
    expect((failure as APICallError).message).toBe(body.error.message)
  })
})
