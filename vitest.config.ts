import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Several suites start servers and child processes; two cores are the norm here.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
})
