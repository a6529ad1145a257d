import { defineConfig } from 'tsup'

// One entry per public subpath (see package.json "exports"), plus the CLI.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'server/index': 'src/server/index.ts',
    'adapters/langchain/index': 'src/adapters/langchain/index.ts',
    'cli/main': 'src/cli/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: {
    entry: ['src/index.ts', 'src/testing/index.ts', 'src/server/index.ts', 'src/adapters/langchain/index.ts'],
  },
  sourcemap: true,
  clean: true,
  splitting: true,
  // zod goes into the bundle so that only what the schemas use is kept: its published entries all
  // load every locale module (64 of them, about half of `import('charpipe')` otherwise). Sources
  // import it as a namespace (`import * as z`), which lets the bundler drop what is never used.
  noExternal: ['zod'],
})
