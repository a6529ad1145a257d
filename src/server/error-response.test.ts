import { describe, expect, it } from 'vitest'
import {
  BadRequestError,
  InvalidConfigError,
  UpstreamHttpError,
  UpstreamTimeoutError,
} from '../shared/errors.js'
import { convertErrorToResponseBody, mapErrorCodeToStatus } from './error-response.js'

describe('error responses', () => {
  it.each([
    ['upstream_http', 502],
    ['upstream_unreachable', 502],
    ['upstream_timeout', 504],
    ['upstream_stream', 502],
    ['bad_request', 400],
    ['invalid_config', 400],
    ['internal', 500],
    ['something_else', 500],
  ])('maps %s to %i', (code, status) => {
    expect(mapErrorCodeToStatus(code)).toBe(status)
  })

  it('answers with the code, message and config issues', () => {
    expect(convertErrorToResponseBody(new UpstreamHttpError(429, 'slow down'))).toEqual({
      status: 502,
      body: { error: { code: 'upstream_http', message: 'upstream answered HTTP 429: slow down' } },
    })
    expect(convertErrorToResponseBody(new UpstreamTimeoutError('no first chunk')).status).toBe(504)
    expect(convertErrorToResponseBody(new BadRequestError('text: required')).body.error.code).toBe(
      'bad_request',
    )
    const invalid = convertErrorToResponseBody(
      new InvalidConfigError([{ path: 'llm.temperature', message: 'too big' }]),
    )
    expect(invalid.body.error.issues).toEqual([{ path: 'llm.temperature', message: 'too big' }])
  })

  it('hides the message of an unexpected error', () => {
    expect(convertErrorToResponseBody(new Error('db password is hunter2'))).toEqual({
      status: 500,
      body: { error: { code: 'internal', message: 'internal server error' } },
    })
  })
})
