/**
 * Reading config.yaml: YAML → `${ENV}` substitution → schema (all problems at once, by field path) →
 * cross-field checks → soft warnings. A missing file means the defaults (provider `mock`).
 */
import { readFile } from 'node:fs/promises'
import { parseDocument } from 'yaml'
import type { z } from 'zod'
import { ConfigFileNotFoundError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'
import { getLogger, type Logger, registerSecrets } from '../shared/logger.js'
import { findConfigErrors, findConfigWarnings } from './check-config.js'
import { substituteEnvVariables } from './env-substitution.js'
import { findNearFile } from './find-near-file.js'
import { collectSecrets } from './mask-secrets.js'
import { type CharpipeConfig, configSchema } from './schema.js'

/** An extra check run after the schema, e.g. processors validating their own options. */
export type ConfigCheck = (config: CharpipeConfig) => ConfigIssue[]

export interface ParseConfigOptions {
  /** Named in error messages (a file path, "PUT /api/config"). */
  source?: string
  environment?: Record<string, string | undefined>
  checks?: ConfigCheck[]
  logger?: Logger
}

export interface ParseConfigResult {
  config: CharpipeConfig
  warnings: ConfigIssue[]
}

export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((key) => String(key)).join('.')
}

export function convertZodIssues(issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  return issues.map((issue) => {
    const path = formatIssuePath(issue.path)
    if (issue.code === 'unrecognized_keys') {
      const base = path ? `${path}.` : ''
      return {
        path: `${base}${issue.keys[0]}`,
        message: `unknown field${issue.keys.length > 1 ? `s ${issue.keys.join(', ')}` : ''}`,
      }
    }
    return { path, message: issue.message }
  })
}

/** Validates an already-parsed config object (the YAML's content, or a body of PUT /api/config). */
export function parseConfig(raw: unknown, options: ParseConfigOptions = {}): ParseConfigResult {
  const logger = options.logger ?? getLogger('config')
  const substituted = substituteEnvVariables(raw ?? {}, options.environment)
  const warnings: ConfigIssue[] = substituted.missing.map(({ path, variable }) => ({
    path,
    message: `environment variable ${variable} is not set; using an empty value`,
  }))

  const parsed = configSchema.safeParse(substituted.value)
  if (!parsed.success) {
    throw new InvalidConfigError(convertZodIssues(parsed.error.issues), { source: options.source })
  }
  const config = parsed.data
  const errors = [...findConfigErrors(config), ...(options.checks ?? []).flatMap((check) => check(config))]
  if (errors.length > 0) throw new InvalidConfigError(errors, { source: options.source })

  warnings.push(...findConfigWarnings(config))
  registerSecrets(collectSecrets(config))
  for (const warning of warnings)
    logger.warn({ path: warning.path, source: options.source }, `config: ${warning.path}: ${warning.message}`)
  return { config, warnings }
}

export interface LoadConfigResult extends ParseConfigResult {
  /** The file's content before substitution (kept for writing back without expanding `${ENV}`). */
  raw: Record<string, unknown>
  /** False when the file did not exist and defaults were used. */
  fromFile: boolean
  path: string
}

export interface LoadConfigOptions extends Omit<ParseConfigOptions, 'source'> {
  /**
   * The file must exist: a path the user named is a mistake when missing, not a wish for the
   * defaults. Throws ConfigFileNotFoundError (naming a near file when there is one).
   * @default false
   */
  required?: boolean
}

/** Reads and validates a config file; a missing file yields the defaults unless `required`. */
export async function loadConfig(path: string, options: LoadConfigOptions = {}): Promise<LoadConfigResult> {
  const { required, ...parseOptions } = options
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    if (required) {
      throw new ConfigFileNotFoundError(path, { suggestion: await findNearFile(path), cause: error })
    }
    return { ...parseConfig({}, { ...parseOptions, source: path }), raw: {}, fromFile: false, path }
  }
  const raw = parseConfigText(text, path)
  return { ...parseConfig(raw, { ...parseOptions, source: path }), raw, fromFile: true, path }
}

/** YAML text to a plain object; syntax errors become an InvalidConfigError with line numbers. */
export function parseConfigText(text: string, source = 'config.yaml'): Record<string, unknown> {
  const document = parseDocument(text, { prettyErrors: true })
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

/** The config with every default, as used when no file exists. */
export function defaultConfig(): CharpipeConfig {
  return configSchema.parse({})
}
