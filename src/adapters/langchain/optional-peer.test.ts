/**
 * `@langchain/core` is an optional peer: only `charpipe/langchain` may load it. Walks the static and
 * dynamic imports of each entry's source files and looks for the package.
 */
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const sourceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** Every package an entry reaches through its relative imports (type-only imports included). */
function collectPackages(entry: string): Set<string> {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const pending = [resolve(sourceRoot, entry)]
  while (pending.length > 0) {
    const file = pending.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2]!
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
      else packages.add(specifier)
    }
  }
  return packages
}

const isLangChain = (specifier: string) => specifier.startsWith('@langchain/')

describe('@langchain/core stays behind charpipe/langchain', () => {
  it('is not reached from the bare charpipe import, the server or the testing entry', () => {
    // The walk does reach the packages deep inside: the server's framework, the OpenAI client.
    expect(collectPackages('server/index.ts')).toContain('hono')
    expect(collectPackages('index.ts')).toContain('openai')
    for (const entry of ['index.ts', 'server/index.ts', 'testing/index.ts']) {
      expect([...collectPackages(entry)].filter(isLangChain), entry).toEqual([])
    }
  })

  it('is what the langchain entry loads', () => {
    expect([...collectPackages('adapters/langchain/index.ts')].filter(isLangChain)).toContain(
      '@langchain/core/messages',
    )
  })
})
