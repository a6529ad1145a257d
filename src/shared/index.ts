export type { AudioTranscriber } from './audio-transcriber.js'
export {
  AbortedError,
  BadRequestError,
  CharpipeError,
  type CharpipeErrorCode,
  ConfigFileNotFoundError,
  type ConfigIssue,
  InvalidConfigError,
  isRetryableStatus,
  StoreUnavailableError,
  UpstreamHttpError,
  UpstreamStreamError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from './errors.js'
export type * from './events.js'
export { legacyEventNames } from './events.js'
export type { ImageDescriber } from './image-describer.js'
export { createLogger, getLogger, type Logger, registerSecrets, setLogger } from './logger.js'
export type * from './messages.js'
export { messageText } from './messages.js'
