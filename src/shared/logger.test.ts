import { describe, expect, it } from 'vitest'
import { createLogger, registerSecrets } from './logger.js'
import { redactText } from './redact.js'

function capture() {
  const lines: string[] = []
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } })
  return { logger, text: () => lines.join('') }
}

describe('logger secret scrubbing', () => {
  it('masks secret-named fields at any depth', () => {
    const { logger, text } = capture()
    logger.info(
      {
        llm: { api_key: 'plain-secret-value', model: 'm' },
        headers: { Authorization: 'Bearer abcdefghijkl' },
      },
      'hello',
    )
    expect(text()).not.toContain('plain-secret-value')
    expect(text()).not.toContain('abcdefghijkl')
    expect(text()).toContain('"model":"m"')
  })

  it('scrubs registered secrets and key-shaped tokens from messages and errors', () => {
    registerSecrets(['my-registered-secret-42'])
    const { logger, text } = capture()
    logger.error(
      { error: new Error('upstream said: key my-registered-secret-42 invalid') },
      'failed with sk-abcdefghijklmnop',
    )
    expect(text()).not.toContain('my-registered-secret-42')
    expect(text()).not.toContain('sk-abcdefghijklmnop')
    expect(text()).toContain('***')
  })
})

describe('redactText', () => {
  it('masks bearer tokens and key query parameters but keeps their names', () => {
    expect(redactText('Authorization: Bearer abc.def-ghi_jkl')).toBe('Authorization: Bearer ***')
    expect(redactText('GET /v1?api_key=zzzzzzzz&x=1')).toBe('GET /v1?api_key=***&x=1')
  })

  it('leaves ordinary text alone', () => {
    expect(redactText('你好，今天天气真好。sk is short')).toBe('你好，今天天气真好。sk is short')
  })
})
