import { afterEach, describe, expect, it } from 'vitest'
import { describeDoctorCheck } from './describe-doctor-check.js'
import { setLanguage } from './i18n.js'

afterEach(() => setLanguage('zh'))

describe('describeDoctorCheck', () => {
  it('words the code and keeps the server message as the detail', () => {
    setLanguage('en')
    const message = 'openai at https://api.example/v1/models rejected the credentials (HTTP 401)'
    expect(describeDoctorCheck({ name: 'provider', ok: false, code: 'key_refused', message })).toEqual({
      name: 'Provider',
      outcome: 'reached, but the key was refused',
      detail: message,
    })
    expect(describeDoctorCheck({ name: 'provider', ok: false, code: 'unreachable' }).outcome).toBe(
      'cannot be reached',
    )
    setLanguage('zh')
    expect(describeDoctorCheck({ name: 'provider', ok: false, code: 'key_refused' }).outcome).toBe(
      '连接到了，但密钥被拒绝',
    )
  })

  it('falls back to the server message without a code, or with one it does not know', () => {
    setLanguage('en')
    expect(describeDoctorCheck({ name: 'provider', ok: false, message: 'cannot reach x' })).toEqual({
      name: 'Provider',
      outcome: 'cannot reach x',
    })
    expect(describeDoctorCheck({ name: 'tools', ok: true, code: 'later_code', message: 'fine' })).toEqual({
      name: 'tools',
      outcome: 'fine',
    })
    expect(
      describeDoctorCheck({ name: 'config', ok: true, code: 'ok', message: 'the config is valid' }).outcome,
    ).toBe('the config is valid')
    expect(
      describeDoctorCheck({ name: 'config', ok: false, code: 'invalid_config', message: 'llm.model: x' }),
    ).toEqual({ name: 'Config', outcome: 'the config is invalid', detail: 'llm.model: x' })
  })
})
