import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { applyChangesToYaml, writeFileAtomically } from './write-config-file.js'

describe('applyChangesToYaml', () => {
  it('edits values in place and keeps comments and key order', () => {
    const text =
      '# top comment\nllm:\n  provider: mock # inline\n  # above temperature\n  temperature: 0.8\ncharacter:\n  name: a\n'
    const result = applyChangesToYaml(text, [
      { path: ['llm', 'temperature'], value: 0.2 },
      { path: ['character', 'persona'], value: 'new' },
    ])
    expect(result).toBe(
      '# top comment\nllm:\n  provider: mock # inline\n  # above temperature\n  temperature: 0.2\ncharacter:\n  name: a\n  persona: new\n',
    )
  })

  it('replaces a null parent with a mapping, and writes into an empty file', () => {
    expect(
      applyChangesToYaml('memory:\n  embeddings: null\n', [
        { path: ['memory', 'embeddings', 'model'], value: 'm' },
      ]),
    ).toBe('memory:\n  embeddings:\n    model: m\n')
    expect(applyChangesToYaml('', [{ path: ['llm', 'provider'], value: 'ollama' }])).toBe(
      'llm:\n  provider: ollama\n',
    )
  })
})

describe('applyChangesToYaml removals', () => {
  it('deletes a removed key and keeps the comments around it', () => {
    const text = 'character:\n  # aliases I use\n  emotion_aliases:\n    joy: 开心\n    sad: 难过 # keep\n'
    expect(
      applyChangesToYaml(text, [
        { path: ['character', 'emotion_aliases', 'joy'], value: undefined, remove: true },
      ]),
    ).toBe('character:\n  # aliases I use\n  emotion_aliases:\n    sad: 难过 # keep\n')
  })
})

describe('writeFileAtomically', () => {
  it('replaces the file and leaves no temporary file behind', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'charpipe-write-'))
    try {
      const path = join(folder, 'config.yaml')
      await writeFile(path, 'old')
      await writeFileAtomically(path, 'new')
      expect(await readFile(path, 'utf8')).toBe('new')
      expect(await readdir(folder)).toEqual(['config.yaml'])
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})
