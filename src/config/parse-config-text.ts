/**
 * YAML text to a plain object, the first step of reading config.yaml or a character file of
 * `characters_dir`. On its own so that `characters/` can read YAML without importing the loader
 * that reads `characters/` (no import cycle).
 */
import { createRequire } from 'node:module'
import { InvalidConfigError } from '../shared/errors.js'

// The YAML parser is loaded with the first config file read: library users who pass a config
// object never need it.
const require = createRequire(import.meta.url)
let yaml: typeof import('yaml') | undefined

/** YAML text to a plain object; syntax errors become an InvalidConfigError with line numbers. */
export function parseConfigText(text: string, source = 'config.yaml'): Record<string, unknown> {
  yaml ??= require('yaml') as typeof import('yaml')
  const document = yaml.parseDocument(text, { prettyErrors: true })
  if (document.errors.length > 0) {
    throw new InvalidConfigError(
      document.errors.map((error) => ({
        path: error.linePos ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '',
        message: error.message.split('\n')[0] ?? error.message,
      })),
      { source },
    )
  }
  const value: unknown = document.toJS() ?? {}
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidConfigError(
      [{ path: '', message: 'the config must be a mapping of sections (server, llm, character, …)' }],
      { source },
    )
  }
  return value as Record<string, unknown>
}
