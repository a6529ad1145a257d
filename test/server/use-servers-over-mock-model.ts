/**
 * For suites of servers over the real engine: one mock model server for the file (reset after each
 * test), and a server per test, stopped after it. Call at the top of a test file.
 */
import { afterAll, afterEach, beforeAll } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'

export interface ServersOverMockModel {
  readonly model: MockModelServer
  /** The test's server; throws before `start`. */
  readonly server: TestServer
  /** Starts the test's server, `extraYaml` appended to its config. */
  start(extraYaml?: string[]): Promise<TestServer>
  /** Runs after the test, before its server stops. */
  onCleanup(cleanup: () => void): void
}

export function useServersOverMockModel(): ServersOverMockModel {
  let model: MockModelServer | undefined
  let server: TestServer | undefined
  const cleanups: (() => void)[] = []
  beforeAll(async () => {
    model = await startMockModelServer()
  })
  afterAll(() => model?.close())
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) cleanup()
    await server?.stop()
    server = undefined
    model?.reset()
  })
  return {
    get model() {
      if (!model) throw new Error('the mock model server starts before the tests')
      return model
    },
    get server() {
      if (!server) throw new Error('start the server first')
      return server
    },
    async start(extraYaml = []) {
      server = await startServerOverModel(this.model.url, extraYaml)
      return server
    },
    onCleanup(cleanup) {
      cleanups.push(cleanup)
    },
  }
}
