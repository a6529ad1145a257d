import { afterEach, describe, expect, it } from 'vitest'
import { describeChatError, isInterruptionCode } from './describe-chat-error.js'
import { setLanguage } from './i18n.js'

afterEach(() => setLanguage('zh'))

describe('describeChatError', () => {
  it('says the key was refused for 401 and 403, with where to fix it', () => {
    setLanguage('en')
    for (const status of [401, 403]) {
      const described = describeChatError({ code: 'upstream_http', status, message: '{"error":"bad key"}' })
      expect(described.summary).toBe(`The provider refused the API key (HTTP ${status}).`)
      expect(described.check).toContain('llm.api_key')
      expect(described.detail).toBe('{"error":"bad key"}')
    }
  })

  it('tells apart model not found, rate limits, other statuses, unreachable, timeout and store', () => {
    setLanguage('en')
    expect(describeChatError({ code: 'upstream_http', status: 404 }).check).toContain('llm.model')
    expect(describeChatError({ code: 'upstream_http', status: 429 }).summary).toContain('429')
    expect(describeChatError({ code: 'upstream_http', status: 502 }).summary).toBe(
      'The provider answered with an error (HTTP 502).',
    )
    expect(describeChatError({ code: 'upstream_unreachable' }).check).toContain('llm.base_url')
    expect(describeChatError({ code: 'upstream_timeout' }).check).toContain('llm.timeout_ms')
    expect(describeChatError({ code: 'upstream_stream' }).summary).toBe('The reply broke off midway.')
    expect(describeChatError({ code: 'store_unavailable' }).check).toContain('storage')
    expect(describeChatError({ code: 'bad_request', message: 'text: required' }).summary).toBe(
      'The request was refused: text: required',
    )
    expect(describeChatError({ code: 'something_new', message: 'x' }).summary).toBe(
      'Something went wrong (something_new): x',
    )
  })

  it('speaks Chinese when the page does', () => {
    setLanguage('zh')
    expect(describeChatError({ code: 'upstream_http', status: 401 }).summary).toBe(
      '服务商拒绝了 API 密钥（HTTP 401）。',
    )
  })

  it('knows interruptions are not errors', () => {
    expect(isInterruptionCode('interrupted_by_new_input')).toBe(true)
    expect(isInterruptionCode('upstream_timeout')).toBe(false)
  })
})
