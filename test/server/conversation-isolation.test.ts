/**
 * Keys built from client strings never let one conversation reach another's data, through the
 * public API over the real engine: a character's memories stay out of the default character's
 * session whose id reads like `<character>:<session>`.
 */
import { describe, expect, it, vi } from 'vitest'
import { memoryScopeOf } from '../../src/memory/index.js'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()

const chat = async (body: Record<string, unknown>) => {
  const response = await fetch(`${suite.server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  await response.text()
}

const listMemories = async (scope: string): Promise<string[]> => {
  const answer = await (
    await fetch(`${suite.server.url}/api/memory?scope=${encodeURIComponent(scope)}`)
  ).json()
  return (answer.memories as { text: string }[]).map((memory) => memory.text)
}

/** Every message the model was sent in its last request, as one text. */
const lastPrompt = () =>
  JSON.stringify((suite.model.requests.at(-1)!.body as { messages: unknown[] }).messages)

describe('memory scopes', () => {
  it("a character's memories never reach the default character's session `<character>:<session>`", async () => {
    await suite.start(['characters:', '  nova:', '    name: Nova', '    persona: A pilot.'])
    await chat({ character: 'nova', session: 'alice', text: 'My locker code is 4711 zebra.' })
    await vi.waitFor(async () => expect((await listMemories('nova:alice')).join()).toContain('4711'), {
      timeout: 10_000,
    })

    await chat({ session: 'nova:alice', text: 'What is my locker code, zebra?' })
    expect(lastPrompt()).not.toContain('4711')
    await vi.waitFor(
      async () =>
        expect((await listMemories(memoryScopeOf({ session: 'nova:alice' }))).join()).toContain(
          'locker code',
        ),
      { timeout: 10_000 },
    )
    expect((await listMemories('nova:alice')).join()).not.toContain('What is my locker code')

    // The rightful conversation still finds its memory.
    await chat({ character: 'nova', session: 'alice', text: 'What is my locker code, zebra?' })
    expect(lastPrompt()).toContain('4711')
  })
})
