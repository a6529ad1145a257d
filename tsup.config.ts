import { defineConfig } from 'tsup'

// One entry per public subpath (see package.json "exports"; test/public-api.test.ts checks both
// agree), plus the CLI.
const subpaths = {
  index: 'src/index.ts',
  'testing/index': 'src/testing/index.ts',
  'server/index': 'src/server/index.ts',
  'adapters/langchain/index': 'src/adapters/langchain/index.ts',
  'memory/index': 'src/memory/index.ts',
  'memory/postgres': 'src/memory/postgres.ts',
  'memory/redis': 'src/memory/redis.ts',
  'cluster/index': 'src/cluster/index.ts',
  'providers/index': 'src/providers/index.ts',
  'context/index': 'src/context/index.ts',
  'reply/index': 'src/reply/index.ts',
  'tools/index': 'src/tools/index.ts',
  'characters/index': 'src/characters/index.ts',
}

export default defineConfig({
  entry: { ...subpaths, 'cli/main': 'src/cli/main.ts' },
  format: ['esm'],
  target: 'node20',
  dts: { entry: subpaths },
  sourcemap: true,
  clean: true,
  splitting: true,
  // zod goes into the bundle so that only what the schemas use is kept: its published entries all
  // load every locale module (64 of them, about half of `import('charpipe')` otherwise). Sources
  // import it as a namespace (`import * as z`), which lets the bundler drop what is never used.
  // eventsource-parser (the upstream SSE decoder's parser, a few KB) is bundled for the same
  // reason: `import('charpipe')` loads no dependency, and an installed package needs none for it.
  noExternal: ['zod', 'eventsource-parser'],
})
