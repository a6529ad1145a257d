/**
 * Global setup of the integration tests: builds the web page (`dist/web`) from the current sources
 * once, before any test file starts. Browser tests used to build it each, and two files building at
 * once could rename one's files under the other's server.
 */
import { buildWeb } from '../../scripts/build-web.js'

export default async function setup(): Promise<void> {
  await buildWeb()
}
