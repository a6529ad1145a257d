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
})
