/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after the default reporter,
 * so any log reader can tell how many tests ran without knowing vitest's format.
 */
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      // A file whose setup or import failed has tests that never ran: count it as a failure, as vitest does.
      const moduleFailed = module.errors().length > 0 || module.state() === 'failed'
      let failedInModule = 0
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failedInModule++
        else if (!moduleFailed) skipped++
      }
      failed += moduleFailed ? Math.max(failedInModule, 1) : failedInModule
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
