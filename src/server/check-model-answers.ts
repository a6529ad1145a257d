/**
 * The doctor's last check, as `charpipe doctor` runs it: the configured provider alone (no retries,
 * no fallbacks) is asked for a one-word answer.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { createProviderFromConfig } from '../providers/index.js'
import { CharpipeError } from '../shared/errors.js'
import { createLogger, scrubSecrets } from '../shared/logger.js'
import type { DoctorCheck } from './check-provider-connection.js'

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
      message: `${provider.name}/${provider.model} answered${shown ? ` "${shown}"` : ''}`,
    }
  } catch (error) {
    if (signal.aborted) return { name, ok: false, message: `no answer within ${timeoutMs / 1000} s` }
    if (CharpipeError.isInstance(error) && (error.status === 401 || error.status === 403)) {
      return { name, ok: false, message: `HTTP ${error.status}: the API key or token was refused` }
    }
    const message = CharpipeError.isInstance(error)
      ? `${error.code}: ${error.message}`
      : (error as Error).message
    return { name, ok: false, message: scrubSecrets(message) }
  }
}
