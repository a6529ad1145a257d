/**
 * The error every persistent history store throws when its back end cannot be opened, migrated or
 * written, or when a turn handed to it is malformed. The message names the store and what is wrong
 * (the database path, or the host of a server URL with its credentials left out).
 */
import { CharpipeError, type CharpipeErrorOptions } from '../../shared/errors.js'

export class HistoryStoreError extends CharpipeError {
  constructor(message: string, options: CharpipeErrorOptions = {}) {
    super('internal', message, options)
    this.name = 'HistoryStoreError'
  }
}

/** A server URL safe to print: scheme, host and port, never the user or password. */
export function describeServerUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? parsed.pathname : ''}`
  } catch {
    return '(unparseable URL)'
  }
}

/** The message of any thrown value. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
