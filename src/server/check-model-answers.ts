/**
 * The doctor's last check, as `charpipe doctor` runs it: the configured provider alone (no retries,
 * no fallbacks) is asked for a one-word answer.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { createProviderFromConfig } from '../providers/index.js'
import { CharpipeError, UpstreamHttpError } from '../shared/errors.js'
import { createLogger, scrubSecrets } from '../shared/logger.js'
import { convertStatusToCheckCode, type DoctorCheck } from './check-provider-connection.js'

export interface CheckModelAnswersOptions {
  config: CharpipeConfig
  /** @default 15000 */
  timeoutMs?: number
}

export async function checkModelAnswers(options: CheckModelAnswersOptions): Promise<DoctorCheck> {
  const name = 'model'
  const { config } = options
  const single: CharpipeConfig = { ...config, llm: { ...config.llm, max_retries: 0, fallbacks: [] } }
  const timeoutMs = Math.min(config.llm.timeout_ms, options.timeoutMs ?? 15_000)
  const signal = AbortSignal.timeout(timeoutMs)
  let text = ''
  try {
    const provider = createProviderFromConfig(single, { logger: createLogger({ level: 'silent' }) })
    const stream = provider.streamChat(
      { messages: [{ role: 'user', content: 'Reply with one word: ok' }], maxTokens: 16 },
      { signal },
    )
    for await (const event of stream) if (event.type === 'text-delta') text += event.text
    const shown = text.trim().replace(/\s+/g, ' ').slice(0, 60)
    return {
      name,
      ok: true,
      code: 'ok',
      message: `${provider.name}/${provider.model} answered${shown ? ` "${shown}"` : ''}`,
    }
  } catch (error) {
    if (signal.aborted)
      return { name, ok: false, code: 'timeout', message: `no answer within ${timeoutMs / 1000} s` }
    if (!CharpipeError.isInstance(error))
      return { name, ok: false, code: 'http_error', message: 'the request failed' }
    if (error.code === 'upstream_timeout')
      return { name, ok: false, code: 'timeout', message: scrubSecrets(error.message) }
    if (error.code === 'upstream_unreachable')
      return { name, ok: false, code: 'unreachable', message: 'the provider cannot be reached' }
    if (error.status !== undefined) {
      const code = convertStatusToCheckCode(error.status)
      const wording =
        code === 'key_refused'
          ? 'reached, but the API key or token was refused'
          : code === 'not_found'
            ? 'reached, but the model or address was not found'
            : 'reached, but the request failed'
      // Only the provider's own JSON error message (already cut short) follows the status.
      const detail = error instanceof UpstreamHttpError && error.bodyExcerpt ? `: ${error.bodyExcerpt}` : ''
      return { name, ok: false, code, message: `HTTP ${error.status}: ${wording}${detail}` }
    }
    return { name, ok: false, code: 'http_error', message: scrubSecrets(`${error.code}: ${error.message}`) }
  }
}
