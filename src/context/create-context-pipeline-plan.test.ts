/**
 * The pipeline keeps its processor plan per config object; these tests pin down that nothing stale
 * survives a reload (a new config object), a processor registered on the pipeline, or a plugin
 * registered or removed globally.
 */
import { describe, expect, it } from 'vitest'
import { createFakeBuildOptions } from '../testing/create-fake-build-options.js'
import { createContextPipeline } from './create-context-pipeline.js'
import { registerProcessor } from './processor-registry.js'
import type { ContextProcessor } from './types.js'

function recorder(id: string, priority: number, order: string[]): ContextProcessor {
  return {
    id,
    name: id,
    description: id,
    priority,
    execute(_context, settings) {
      order.push(settings.label === undefined ? id : `${id}:${String(settings.label)}`)
    },
  }
}

describe('the context pipeline plan', () => {
  it('follows a new config on the next build, and the old config still builds as before', async () => {
    const order: string[] = []
    const pipeline = createContextPipeline({
      processors: [recorder('a', 100, order), recorder('b', 200, order)],
    })
    const first = createFakeBuildOptions({ config: { pipeline: { processors: { a: { label: 'one' } } } } })
    const reloaded = createFakeBuildOptions({
      config: { pipeline: { processors: { a: { priority: 300, label: 'two' }, b: { enabled: false } } } },
    })
    await pipeline.build(first)
    await pipeline.build(first)
    await pipeline.build(reloaded)
    await pipeline.build(first)
    expect(order).toEqual(['a:one', 'b', 'a:one', 'b', 'a:two', 'a:one', 'b'])
  })

  it('runs a processor registered on the pipeline from the next build with the same config', async () => {
    const order: string[] = []
    const pipeline = createContextPipeline({ processors: [recorder('a', 100, order)] })
    const options = createFakeBuildOptions()
    await pipeline.build(options)
    pipeline.register(recorder('late', 50, order))
    await pipeline.build(options)
    expect(order).toEqual(['a', 'late', 'a'])
  })

  it('runs a global plugin from the next build and drops it once removed', async () => {
    const order: string[] = []
    const pipeline = createContextPipeline({ processors: [recorder('a', 100, order)] })
    const options = createFakeBuildOptions()
    await pipeline.build(options)
    const unregister = registerProcessor(recorder('plugin-plan-test', 900, order))
    try {
      await pipeline.build(options)
    } finally {
      unregister()
    }
    await pipeline.build(options)
    expect(order).toEqual(['a', 'a', 'plugin-plan-test', 'a'])
  })
})
