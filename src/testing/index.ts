/**
 * `charpipe/testing`: the mock model server and fakes for tests and for trying the pipeline without
 * keys.
 */
export {
  type ComposeMockReplyOptions,
  type ComposeMockReplyResult,
  composeMockReply,
} from '../providers/compose-mock-reply.js'
export {
  type CreateFakeProviderOptions,
  createFakeProvider,
  type FakeProvider,
  type FakeProviderCall,
  type FakeReply,
} from './create-fake-provider.js'
export { createManualClock, type ManualClock } from './create-manual-clock.js'
export {
  defaultHashedDimensions,
  type EmbedHashedNgramsOptions,
  embedHashedNgrams,
} from './embed-hashed-ngrams.js'
export { type LoadedFixture, type LoadFixtureOptions, loadFixture } from './load-fixture.js'
export { type MockReply, type MockScript, parseMockReply, parseMockScript } from './mock-reply.js'
export { mockReplyHeader } from './select-mock-reply.js'
export {
  type MockModelServer,
  type RecordedRequest,
  type StartMockModelServerOptions,
  startMockModelServer,
} from './start-mock-model-server.js'
