import { defineConfig } from 'vitest/config'

/**
 * Tests that need more than this process: a browser (the page), a spawned process (the CLI,
 * `charpipe serve`, stdio MCP servers, the bundler) or a database (PostgreSQL, Redis). `npm test`
 * runs everything; `npm run test:unit` (the `unit` project) runs the rest but the doors (below),
 * in under two minutes on two cores.
 * A new test that starts any of these belongs here, and in test/ (its helpers for databases and
 * spawned processes are in test/support/, which tests under src/ may not import).
 */
const needsMore = [
  // A browser.
  'test/web/**',
  // Spawned processes.
  'test/cli/**',
  'test/durability.test.ts',
  'test/package-import.test.ts',
  'test/faults/**',
  'test/characters/card-command.test.ts',
  'test/characters/card-fixtures.test.ts',
  'test/server/least-power-env-references.test.ts',
  'test/engine/cli-commands.test.ts',
  'test/server/serve-command.test.ts',
  'test/server/mcp-tools-api.test.ts',
  'test/tools/mcp-images.test.ts',
  'test/tools/mcp-tools.test.ts',
  'test/tools/mcp-failure-reason.test.ts',
  'test/tools/mcp-listing-limits.test.ts',
  'test/tools/mcp-conformance.test.ts',
  'test/tools/mcp-serve.test.ts',
  // PostgreSQL or Redis.
  'test/cluster/**',
  'test/engine/close-running-turn.test.ts',
  'test/memory/create-postgres-memory-store.test.ts',
  'test/memory/history-store-factory.test.ts',
  'test/memory/memory-store-factory.test.ts',
  'test/memory/migrate-memory-scopes.test.ts',
  'test/memory/people-postgres.test.ts',
  'test/memory/postgres-history-store.test.ts',
  'test/memory/recall-budget-postgres.test.ts',
  'test/memory/redis-history-store.test.ts',
]

/**
 * The door battery and the fuzzed doors (test/doors/): every way into a session driven over a real
 * server with the real engine, with chosen and generated hostile inputs. A tier of its own
 * (`npm run test:doors`, the `doors` project) so its servers and generated cases do not share the
 * unit tier's minute; `npm test` runs it with the rest.
 */
const doorTests = 'test/doors/**'

export default defineConfig({
  test: {
    // A hang guard, not a timing: several suites start servers and child processes, and a loaded
    // two-core machine is the norm (at a load average of 35, a test of five CLI runs took 39 s and
    // a door-battery cell 30 s).
    testTimeout: 90_000,
    hookTimeout: 90_000,
    reporters: ['default', './scripts/summary-reporter.ts'],
    // Two files at a time: most of a test's time here is waiting (for a child process, a socket, a
    // browser), so the second core is otherwise idle. Vitest's default on two cores is one.
    maxWorkers: 2,
    // A wait that names no deadline may take 15 s before it fails, not 1 s (test/support/wait-deadlines.ts).
    setupFiles: ['./test/support/wait-deadlines.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...needsMore, doorTests],
          // In-process files share one module graph per worker: loading the sources again for each
          // file took longer than the tests themselves. A test that changes global state (the
          // logger, fake timers, environment variables) puts it back when it ends.
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'doors',
          include: ['test/doors/**/*.test.ts'],
          // Each file starts one server of its own and keeps it for all its tests.
          pool: 'threads',
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: needsMore.map((path) => path.replace(/\/\*\*$/, '/**/*.test.ts')),
          // The CLI bundled once for the run: spawned `charpipe` processes start without the loader.
          // The page built once for the run, from the current sources, before any browser test.
          globalSetup: ['./test/support/build-test-cli.ts', './test/support/build-test-web.ts'],
        },
      },
    ],
  },
})
