import { describe, expect, it } from 'vitest'
import { createToolRegistry } from './tool-registry.js'
import type { Tool } from './types.js'

const options = { signal: new AbortController().signal, session: 's', turn: 't' }

const echo: Tool = {
  name: 'echo',
  description: 'returns its arguments',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (args) => ({ echoed: args.text }),
}

describe('createToolRegistry', () => {
  it('gives the model the definitions and runs a call', async () => {
    const registry = createToolRegistry([echo])
    expect(registry.definitions()).toEqual([
      { name: 'echo', description: 'returns its arguments', parameters: echo.parameters },
    ])
    expect(await registry.run({ id: '1', name: 'echo', arguments: { text: 'hi' } }, options)).toEqual({
      id: '1',
      name: 'echo',
      result: { echoed: 'hi' },
      isError: false,
    })
  })

  it("turns a result that is not JSON (a BigInt, a cycle) into the tool's failure", async () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    const odd: Tool[] = [
      { ...echo, name: 'big', execute: () => ({ count: 10n }) },
      { ...echo, name: 'cycle', execute: () => cycle },
    ]
    const registry = createToolRegistry(odd)
    for (const name of ['big', 'cycle']) {
      const run = await registry.run({ id: name, name, arguments: {} }, options)
      expect(run.isError).toBe(true)
      expect((run.result as { error: string }).error).toMatch(/^the tool returned a value that is not JSON: /)
      expect(() => JSON.stringify(run.result)).not.toThrow()
    }
  })

  it('turns failures into results instead of throwing', async () => {
    const failing: Tool = { ...echo, name: 'fail', execute: () => Promise.reject(new Error('no network')) }
    const registry = createToolRegistry([echo, failing])
    expect(await registry.run({ id: '1', name: 'fail', arguments: {} }, options)).toMatchObject({
      result: { error: 'no network' },
      isError: true,
    })
    expect(await registry.run({ id: '2', name: 'nope', arguments: {} }, options)).toMatchObject({
      result: { error: 'unknown tool nope; available: echo, fail' },
      isError: true,
    })
    expect(await registry.run({ id: '3', name: 'echo', arguments: 'text' }, options)).toMatchObject({
      result: { error: 'arguments must be a JSON object' },
    })
  })

  it('rejects bad tool lists with a message naming the problem', () => {
    expect(() => createToolRegistry([echo, echo])).toThrow('the name echo is used twice')
    expect(() => createToolRegistry([{ ...echo, name: 'has space' }])).toThrow(/tools\[0\]\.name "has space"/)
    expect(() => createToolRegistry([{ ...echo, execute: undefined as never }])).toThrow(
      'no execute function',
    )
  })
})
