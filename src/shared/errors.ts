/**
 * One error model for the whole pipeline. Every failure a caller can see carries a stable `code`
 * (the same strings the WebSocket `llm_error` event uses), and `isRetryable` tells the retry loop
 * whether trying again could help. `isInstance` works across two installed copies of the package.
 */
export type CharpipeErrorCode =
  | 'upstream_unreachable'
  | 'upstream_http'
  | 'upstream_timeout'
  | 'upstream_stream'
  | 'aborted'
  | 'bad_request'
  | 'invalid_config'
  | 'interrupted_by_new_input'
  | 'store_unavailable'
  | 'store_outcome_unknown'
  | 'internal'

const marker = Symbol.for('charpipe.error')

export interface CharpipeErrorOptions extends ErrorOptions {
  /** HTTP status of the upstream answer, when there was one. */
  status?: number
  /** Whether trying the same request again could succeed. */
  retryable?: boolean
  /** Seconds the upstream asked us to wait (`Retry-After`), when it said. */
  retryAfterSeconds?: number
}

export class CharpipeError extends Error {
  readonly [marker] = true
  readonly code: CharpipeErrorCode
  readonly status: number | undefined
  readonly isRetryable: boolean
  readonly retryAfterSeconds: number | undefined

  constructor(code: CharpipeErrorCode, message: string, options: CharpipeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'CharpipeError'
    this.code = code
    this.status = options.status
    this.isRetryable = options.retryable ?? false
    this.retryAfterSeconds = options.retryAfterSeconds
  }

  static isInstance(value: unknown): value is CharpipeError {
    return typeof value === 'object' && value !== null && marker in value
  }
}

/** Retryable HTTP statuses before the first chunk (SPEC R1.5). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

export class UpstreamHttpError extends CharpipeError {
  /** A short excerpt of the response body, with secrets removed. */
  readonly bodyExcerpt: string

  constructor(status: number, bodyExcerpt: string, options: Omit<CharpipeErrorOptions, 'status'> = {}) {
    super('upstream_http', `upstream answered HTTP ${status}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`, {
      retryable: isRetryableStatus(status),
      ...options,
      status,
    })
    this.name = 'UpstreamHttpError'
    this.bodyExcerpt = bodyExcerpt
  }
}

export class UpstreamUnreachableError extends CharpipeError {
  constructor(url: string, options: CharpipeErrorOptions = {}) {
    super('upstream_unreachable', `cannot reach ${url}`, { retryable: true, ...options })
    this.name = 'UpstreamUnreachableError'
  }
}

export class UpstreamTimeoutError extends CharpipeError {
  constructor(message: string, options: CharpipeErrorOptions = {}) {
    super('upstream_timeout', message, { retryable: true, ...options })
    this.name = 'UpstreamTimeoutError'
  }
}

export class UpstreamStreamError extends CharpipeError {
  constructor(message: string, options: CharpipeErrorOptions = {}) {
    super('upstream_stream', message, options)
    this.name = 'UpstreamStreamError'
  }
}

export class AbortedError extends CharpipeError {
  constructor(message = 'aborted', options: CharpipeErrorOptions = {}) {
    super('aborted', message, options)
    this.name = 'AbortedError'
  }
}

export interface ConfigIssue {
  /** Dotted path of the field, e.g. `llm.timeout_ms` or `character.injected_history.2.role`. */
  path: string
  message: string
}

export class InvalidConfigError extends CharpipeError {
  readonly issues: ConfigIssue[]

  constructor(issues: ConfigIssue[], options: { source?: string; summary?: string } & ErrorOptions = {}) {
    const where = options.source ? ` in ${options.source}` : ''
    const list = issues.map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`).join('\n')
    super('invalid_config', `${options.summary ?? `invalid config${where}`}:\n${list}`, options)
    this.name = 'InvalidConfigError'
    this.issues = issues
  }
}

/** An explicitly named config file that does not exist (only the implicit default may be absent). */
export class ConfigFileNotFoundError extends CharpipeError {
  readonly path: string
  /** A file beside it with a near name (`custom.yaml` for `custom.yml`), when there is one. */
  readonly suggestion: string | undefined

  constructor(path: string, options: { suggestion?: string } & ErrorOptions = {}) {
    const hint = options.suggestion ? `; did you mean ${options.suggestion}?` : ''
    super('invalid_config', `config file ${path} not found${hint}`, options)
    this.name = 'ConfigFileNotFoundError'
    this.path = path
    this.suggestion = options.suggestion
  }
}

export class BadRequestError extends CharpipeError {
  constructor(message: string, options: CharpipeErrorOptions = {}) {
    super('bad_request', message, options)
    this.name = 'BadRequestError'
  }
}

/**
 * A history or memory store that is down, refuses connections or did not answer within its
 * deadline (`storage.timeout_ms`). The message names the store and what happened, never a URL's
 * credentials.
 */
export class StoreUnavailableError extends CharpipeError {
  /** Which store: `history` or `memory`. */
  readonly store: string
  /** Whether the store missed its deadline (rather than answering with an error). */
  readonly timedOut: boolean

  constructor(message: string, options: CharpipeErrorOptions & { store: string; timedOut?: boolean }) {
    super('store_unavailable', message, { status: 503, retryable: true, ...options })
    this.name = 'StoreUnavailableError'
    this.store = options.store
    this.timedOut = options.timedOut ?? false
  }
}
