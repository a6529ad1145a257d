/**
 * Which config file the server runs and whether that file is broken (`GET /api/config/status`). A
 * file made invalid by hand keeps the last good config in force on the server, and saves fail until
 * it is fixed: the page says so in a banner naming the file, the field and the problem. What the
 * running config was accepted with but not as written (a card of the characters folder that was
 * skipped) is listed too. A server without this endpoint (older) simply shows no banner.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError, requestJson } from './api-client.js'
import { type ConfigIssue, normalizeIssues } from './config-issues.js'

export interface ConfigFileStatus {
  path: string
  source: 'file' | 'defaults'
  fileError?: { message: string; issues: ConfigIssue[] }
  /** What the running config was accepted with but not as written (a skipped card, an unset `${VAR}`). */
  warnings: ConfigIssue[]
}

let current: ConfigFileStatus | undefined
const listeners = new Set<(status: ConfigFileStatus | undefined) => void>()

/** Reads the answer loosely: a field the page does not know is ignored, a missing one is absent. */
function readConfigStatus(body: unknown): ConfigFileStatus | undefined {
  if (!body || typeof body !== 'object') return undefined
  const record = body as { path?: unknown; source?: unknown; file_error?: unknown; warnings?: unknown }
  const status: ConfigFileStatus = {
    path: typeof record.path === 'string' ? record.path : '',
    source: record.source === 'defaults' ? 'defaults' : 'file',
    warnings: normalizeIssues(record.warnings),
  }
  const fileError = record.file_error as { message?: unknown; issues?: unknown } | null | undefined
  if (fileError && typeof fileError === 'object') {
    status.fileError = {
      message: typeof fileError.message === 'string' ? fileError.message : '',
      issues: normalizeIssues(fileError.issues),
    }
  }
  return status
}

/** Asks the server again (at load and after a failed save) and tells every banner. */
export async function refreshConfigStatus(): Promise<ConfigFileStatus | undefined> {
  try {
    current = readConfigStatus(await requestJson<unknown>('GET', '/api/config/status'))
  } catch (error) {
    // 404: a server without the endpoint. Other failures show elsewhere (the config load).
    if (!(error instanceof ApiError)) throw error
    current = undefined
  }
  for (const listener of listeners) listener(current)
  return current
}

export function useConfigStatus(): ConfigFileStatus | undefined {
  const [status, setStatus] = useState(current)
  useEffect(() => {
    listeners.add(setStatus)
    setStatus(current)
    return () => {
      listeners.delete(setStatus)
    }
  }, [])
  return status
}
