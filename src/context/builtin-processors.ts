/**
 * The builtin processors of SPEC R3.2 at their priorities. Plugins join through
 * `registerProcessor` (900 is the customary place: after the formatters, before the asset resolver).
 */
import { convertSystemToUser } from './formatters/convert-system-to-user.js'
import { anthropicFormat } from './formatters/format-for-anthropic.js'
import { keepInputOnly } from './formatters/keep-input-only.js'
import { mergeConsecutiveRolesProcessor } from './formatters/merge-consecutive-roles.js'
import { mergeSystemMessages } from './formatters/merge-system-messages.js'
import { assetResolver } from './processors/asset-resolver.js'
import { attachmentText } from './processors/attachment-text.js'
import { injectionAssembler } from './processors/injection-assembler.js'
import { lorebook } from './processors/lorebook.js'
import { memoryRetriever } from './processors/memory-retriever.js'
import { regexProcessor } from './processors/regex-processor.js'
import { sessionLoader } from './processors/session-loader.js'
import { tokenLimiter } from './processors/token-limiter.js'
import { userEmotion } from './processors/user-emotion.js'
import type { ContextProcessor } from './types.js'

export const builtinProcessors: readonly ContextProcessor[] = [
  sessionLoader,
  memoryRetriever,
  regexProcessor,
  attachmentText,
  lorebook,
  injectionAssembler,
  userEmotion,
  tokenLimiter,
  mergeSystemMessages,
  keepInputOnly,
  mergeConsecutiveRolesProcessor,
  convertSystemToUser,
  anthropicFormat,
  assetResolver,
]
