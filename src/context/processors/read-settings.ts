/**
 * Typed reads of a processor's loose settings object, falling back to the default when the value
 * has the wrong type (the config check reports it separately).
 */
import type { ProcessorSettings } from '../../config/schema.js'

export function readNumber(settings: ProcessorSettings, key: string, fallback: number): number {
  const value = settings[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback
}

export function readBoolean(settings: ProcessorSettings, key: string, fallback: boolean): boolean {
  const value = settings[key]
  return typeof value === 'boolean' ? value : fallback
}

export function readString(settings: ProcessorSettings, key: string, fallback: string): string {
  const value = settings[key]
  return typeof value === 'string' ? value : fallback
}

/** Problem message when `key` is set with the wrong type, else undefined. */
export function checkType(
  settings: ProcessorSettings,
  key: string,
  type: 'number' | 'boolean' | 'string' | 'array',
): { path: string; message: string } | undefined {
  const value = settings[key]
  if (value === undefined) return undefined
  const ok = type === 'array' ? Array.isArray(value) : typeof value === type
  return ok ? undefined : { path: key, message: `must be a ${type}, got ${JSON.stringify(value)}` }
}
