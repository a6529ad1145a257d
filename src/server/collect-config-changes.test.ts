import { describe, expect, it } from 'vitest'
import { applyConfigChanges, collectConfigChanges } from './collect-config-changes.js'

const reference = ['${', 'OPENAI_KEY}'].join('')

describe('collectConfigChanges', () => {
  const stored = {
    llm: { provider: 'openai', api_key: reference, temperature: 0.5 },
    character: { name: '小雪' },
  }
  const effective = {
    llm: { provider: 'openai', api_key: 'sk-real', temperature: 0.5, max_tokens: 1024 },
    character: { name: '小雪', persona: '' },
  }

  it('keeps only the leaves that differ from both the file and the running config', () => {
    const changes = collectConfigChanges({
      incoming: {
        llm: { provider: 'openai', api_key: reference, temperature: 0.9, max_tokens: 1024 },
        character: { persona: '猫娘' },
      },
      stored,
      effective,
    })
    expect(changes).toEqual([
      { path: ['llm', 'temperature'], value: 0.9 },
      { path: ['character', 'persona'], value: '猫娘' },
    ])
  })

  it('treats an expanded environment value equal to the running one as no change', () => {
    const changes = collectConfigChanges({ incoming: { llm: { api_key: 'sk-real' } }, stored, effective })
    expect(changes).toEqual([])
  })

  it('replaces arrays and scalars under a null parent as one change', () => {
    const changes = collectConfigChanges({
      incoming: {
        memory: { embeddings: { provider: 'openai' } },
        llm: { fallbacks: [{ provider: 'deepseek' }] },
      },
      stored: { memory: { embeddings: null } },
      effective: { memory: { embeddings: null }, llm: { fallbacks: [] } },
    })
    expect(changes).toEqual([
      { path: ['memory', 'embeddings'], value: { provider: 'openai' } },
      { path: ['llm', 'fallbacks'], value: [{ provider: 'deepseek' }] },
    ])
  })
})

describe('null removes a field (JSON Merge Patch)', () => {
  const defaults = { happy: '开心', sad: '难过' }

  it('removes a field the file has', () => {
    const changes = collectConfigChanges({
      incoming: { character: { emotion_aliases: { joy: null } } },
      stored: { character: { emotion_aliases: { joy: '开心', sad: '难过' } } },
      effective: { character: { emotion_aliases: { joy: '开心', sad: '难过' } } },
    })
    expect(changes).toEqual([
      { path: ['character', 'emotion_aliases', 'joy'], value: undefined, remove: true },
    ])
    expect(
      applyConfigChanges({ character: { emotion_aliases: { joy: '开心', sad: '难过' } } }, changes),
    ).toEqual({
      character: { emotion_aliases: { sad: '难过' } },
    })
  })

  it('removes a map key only the defaults give by writing the map without it', () => {
    const changes = collectConfigChanges({
      incoming: { character: { emotion_aliases: { happy: null } } },
      stored: { character: { name: '小雪' } },
      effective: { character: { name: '小雪', emotion_aliases: defaults } },
    })
    expect(changes).toEqual([{ path: ['character', 'emotion_aliases'], value: { sad: '难过' } }])
  })

  it('a null where the file and the running config have nothing, or null already, changes nothing', () => {
    expect(
      collectConfigChanges({
        incoming: { memory: { embeddings: null }, llm: { model: null } },
        stored: { memory: { embeddings: null } },
        effective: { memory: { embeddings: null }, llm: { model: '' } },
      }),
    ).toEqual([])
  })

  it('reads a field named after an Object.prototype member as absent, not as the prototype function', () => {
    expect(
      collectConfigChanges({
        incoming: { character: { toString: null, valueOf: null } },
        stored: { character: { name: '小雪' } },
        effective: { character: { name: '小雪' } },
      }),
    ).toEqual([])
    expect(
      collectConfigChanges({
        incoming: { character: { emotion_aliases: { toString: null } } },
        stored: {},
        effective: { character: { emotion_aliases: { happy: '开心' } } },
      }),
    ).toEqual([])
  })
})

describe('applyConfigChanges', () => {
  it('sets each change on a copy, creating mappings on the way', () => {
    const target = { llm: { provider: 'mock' } }
    const result = applyConfigChanges(target, [
      { path: ['llm', 'model'], value: 'x' },
      { path: ['character', 'name'], value: 'y' },
    ])
    expect(result).toEqual({ llm: { provider: 'mock', model: 'x' }, character: { name: 'y' } })
    expect(target).toEqual({ llm: { provider: 'mock' } })
  })
})
