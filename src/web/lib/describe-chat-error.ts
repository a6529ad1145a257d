/**
 * What a failed turn tells the reader: an `llm_error` code (and HTTP status) becomes a plain
 * sentence in the page's language and what to check, while the server's own message (which may carry
 * the upstream's answer) is kept as a detail. An interruption is not an error and is told apart.
 */
import { translate } from './i18n.js'
import type { MessageKey } from './page-messages.js'

/** An `llm_error` (or `error`) frame as the chat state keeps it. */
export interface ChatErrorFrame {
  code: string
  message?: string
  status?: number
}

export interface ChatErrorDescription {
  /** What happened, in one sentence. */
  summary: string
  /** What to check; absent when there is nothing useful to say. */
  check?: string
  /** The server's message, shown folded away. */
  detail?: string
}

/** Codes that end a turn early without anything being wrong. */
export function isInterruptionCode(code: string): boolean {
  return code === 'interrupted_by_new_input' || code === 'interrupted'
}

function pickHttpMessages(status: number | undefined): [MessageKey, MessageKey] {
  if (status === 401 || status === 403) return ['error.keyRefused', 'error.keyRefusedCheck']
  if (status === 404) return ['error.notFound', 'error.notFoundCheck']
  if (status === 429) return ['error.rateLimited', 'error.rateLimitedCheck']
  return ['error.httpError', 'error.httpErrorCheck']
}

export function describeChatError(frame: ChatErrorFrame): ChatErrorDescription {
  const detail = frame.message?.trim() || undefined
  const status = frame.status === undefined ? '?' : String(frame.status)
  const described = (summary: MessageKey, check: MessageKey): ChatErrorDescription => ({
    summary: translate(summary, { status }),
    check: translate(check),
    detail,
  })
  switch (frame.code) {
    case 'upstream_http': {
      const [summary, check] = pickHttpMessages(frame.status)
      return described(summary, check)
    }
    case 'upstream_unreachable':
      return described('error.unreachable', 'error.unreachableCheck')
    case 'upstream_timeout':
      return described('error.timeout', 'error.timeoutCheck')
    case 'upstream_stream':
      return described('error.stream', 'error.streamCheck')
    case 'store_unavailable':
      return described('error.storeUnavailable', 'error.storeUnavailableCheck')
    case 'bad_request':
      return { summary: translate('error.badRequest', { message: detail ?? '' }) }
    case 'not_connected':
      return { summary: translate('chat.notConnected') }
    default:
      return { summary: translate('error.unknown', { code: frame.code, message: detail ?? '' }) }
  }
}
