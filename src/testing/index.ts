/**
 * `charpipe/testing`: the mock model server and fakes for tests and for trying the pipeline without
 * keys, and the turn test harness (`createTurnHarness`: a real engine, a scripted model, a manual
 * clock, input → events) with the helpers that read a turn's events, and Character Cards (V2, V3,
 * in a PNG) for tests of card import and export.
 */
export {
  type ComposeMockReplyOptions,
  type ComposeMockReplyResult,
  composeMockReply,
} from '../providers/compose-mock-reply.js'
export { createFakeParts } from './create-fake-engine-parts.js'
export {
  type CreateFakeProviderOptions,
  createFakeProvider,
  type FakeProvider,
  type FakeProviderCall,
  type FakeReply,
} from './create-fake-provider.js'
export { createManualClock, type ManualClock } from './create-manual-clock.js'
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedStep,
} from './create-scripted-provider.js'
export { createTurnHarness, type TurnHarness, type TurnHarnessOptions } from './create-turn-harness.js'
export {
  defaultHashedDimensions,
  type EmbedHashedNgramsOptions,
  embedHashedNgrams,
} from './embed-hashed-ngrams.js'
export { type LoadedFixture, type LoadFixtureOptions, loadFixture } from './load-fixture.js'
export { encodeCardChunkText, makeCardPng, makePlainPng } from './make-card-png.js'
export { makeCardV2, makeCardV3 } from './make-character-card.js'
export { type MockReply, type MockScript, parseMockReply, parseMockScript } from './mock-reply.js'
export { mockReplyHeader } from './select-mock-reply.js'
export {
  type MockModelServer,
  type RecordedRequest,
  type StartMockModelServerOptions,
  startMockModelServer,
} from './start-mock-model-server.js'
export { collectEvents, doneOf, sentencesOf, typesOf, watchEvents } from './turn-events.js'
