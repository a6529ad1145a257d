/**
 * How the OpenAI-compatible endpoints (`/v1/chat/completions`, `/v1/responses`) serve a client by
 * its profile: the turn it asks for, and its reply's emotion in the client's dialect.
 */
export { type AiriEmotionName, airiEmotionNames, convertEmotionToAiri } from './convert-emotion-to-airi.js'
export { createClientEmotionWriter } from './create-client-emotion-writer.js'
export {
  type CreateEmotionDialectWriterOptions,
  createEmotionDialectWriter,
  type EmotionDialect,
  type EmotionDialectWriter,
  formatActToken,
  formatBracketTag,
} from './create-emotion-dialect-writer.js'
export {
  type FindRegeneratedTurnOptions,
  findRegeneratedTurn,
  type ReadRegeneratedTurnOptions,
  readRegeneratedTurn,
} from './find-regenerated-turn.js'
export {
  type ClientProfile,
  defaultClientProfile,
  type PlanProfileTurnOptions,
  type PlanProfileTurnResult,
  planProfileTurn,
  readClientProfile,
  unnamedOpenAISession,
} from './plan-profile-turn.js'
