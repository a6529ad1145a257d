import { describe, expect, it } from 'vitest'
import { formatLogLine } from './format-log-line.js'
import { chooseLogFormat, createChildLogger, createLogger, registerSecrets } from './logger.js'
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

describe('logged errors', () => {
  it('keep their stack, cause, code and own fields, scrubbed of secrets', () => {
    registerSecrets(['cause-secret-value-77'])
    const { logger, text } = capture()
    const cause = Object.assign(new Error('socket hang up near cause-secret-value-77'), {
      code: 'ECONNRESET',
    })
    const error = Object.assign(new Error('the turn failed unexpectedly', { cause }), { status: 502 })
    logger.error({ err: error }, 'the turn failed unexpectedly')
    const record = JSON.parse(text()) as { err: Record<string, unknown> & { cause: Record<string, unknown> } }
    expect(record.err).toMatchObject({ type: 'Error', message: 'the turn failed unexpectedly', status: 502 })
    expect(record.err.stack).toEqual(expect.stringContaining('logger.test.ts'))
    expect(record.err.cause).toMatchObject({ type: 'Error', code: 'ECONNRESET' })
    expect(record.err.cause.stack).toEqual(expect.stringContaining('socket hang up'))
    expect(text()).not.toContain('cause-secret-value-77')
  })

  it('stop at a cause chain that loops', () => {
    const { logger, text } = capture()
    const first = new Error('first')
    const second = new Error('second', { cause: first })
    first.cause = second
    logger.error({ err: first }, 'looping causes')
    expect(JSON.parse(text()).err.cause.message).toBe('second')
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

describe('log formats', () => {
  function captureAs(format: 'json' | 'pretty') {
    const lines: string[] = []
    const logger = createLogger({
      level: 'info',
      format,
      destination: { write: (line: string) => lines.push(line) },
    })
    return { logger, lines }
  }

  it('pretty: one readable line per record with time, level, module, message and key=value', () => {
    const { logger, lines } = captureAs('pretty')
    const providers = createChildLogger(createChildLogger(logger, 'engine'), 'providers')
    providers.warn(
      { attempt: 2, url: 'http://127.0.0.1:9/v1', error: new Error('connect ECONNREFUSED') },
      'retrying\nthe request',
    )
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}engine\/providers: retrying the request attempt=2 url=http:\/\/127\.0\.0\.1:9\/v1 error="connect ECONNREFUSED"\n$/,
    )
  })

  it('json: parts of a module never repeat the module key', () => {
    const { logger, lines } = captureAs('json')
    createChildLogger(createChildLogger(logger, 'engine'), 'memory').info('stored')
    const line = lines[0] ?? ''
    expect(line.match(/"module"/g)).toHaveLength(1)
    expect(JSON.parse(line)).toMatchObject({ module: 'engine', component: 'memory', msg: 'stored' })
  })

  it('a part of a logger is made once and kept, with the same bindings', () => {
    const { logger, lines } = captureAs('json')
    const engine = createChildLogger(logger, 'engine')
    expect(createChildLogger(logger, 'engine')).toBe(engine)
    expect(createChildLogger(engine, 'memory')).toBe(createChildLogger(engine, 'memory'))
    expect(createChildLogger(engine, 'memory')).not.toBe(createChildLogger(engine, 'reply'))
    createChildLogger(engine, 'reply').info('kept')
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ module: 'engine', component: 'reply', msg: 'kept' })
  })

  it('CHARPIPE_LOG_FORMAT wins; otherwise pretty only on a terminal', () => {
    const saved = process.env.CHARPIPE_LOG_FORMAT
    try {
      delete process.env.CHARPIPE_LOG_FORMAT
      expect(chooseLogFormat(true)).toBe('pretty')
      expect(chooseLogFormat(false)).toBe('json')
      process.env.CHARPIPE_LOG_FORMAT = 'JSON'
      expect(chooseLogFormat(true)).toBe('json')
      process.env.CHARPIPE_LOG_FORMAT = 'pretty'
      expect(chooseLogFormat(false)).toBe('pretty')
    } finally {
      if (saved === undefined) delete process.env.CHARPIPE_LOG_FORMAT
      else process.env.CHARPIPE_LOG_FORMAT = saved
    }
  })

  it('text that is not a JSON record passes through', () => {
    expect(formatLogLine('plain text')).toBe('plain text\n')
  })
})

describe('log level', () => {
  it('an unknown CHARPIPE_LOG_LEVEL is an error naming the levels', () => {
    const saved = process.env.CHARPIPE_LOG_LEVEL
    try {
      process.env.CHARPIPE_LOG_LEVEL = 'verbose'
      expect(() => createLogger()).toThrow(
        'CHARPIPE_LOG_LEVEL "verbose" is not a log level; use one of trace, debug, info, warn, error, fatal, silent',
      )
    } finally {
      if (saved === undefined) delete process.env.CHARPIPE_LOG_LEVEL
      else process.env.CHARPIPE_LOG_LEVEL = saved
    }
  })
})

describe('URL credentials in logged text', () => {
  it('are scrubbed: user:password, a lone user and secret query values', () => {
    const text = redactText(
      'GET https://bob:pa55-word@h.example/x?token=abc123&page=2 and redis://tok0000@cache:6379 failed',
    )
    expect(text).not.toMatch(/pa55-word|abc123|tok0000/)
    expect(text).toContain('page=2')
    expect(text).toContain('https://bob:***@h.example')
  })
})
