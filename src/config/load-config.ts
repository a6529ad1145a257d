/**
 * Reading config.yaml: YAML → `${ENV}` substitution → schema → cross-field and extra checks → soft
 * warnings, with every problem of the file reported at once by field path. A missing file means the
 * defaults (provider `mock`), unless the caller requires the file (a path the user named).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { z } from 'zod'
// characters/ sits beside config/: the cards of `characters_dir` are part of the config.
import { importCardFile } from '../characters/import-card-file.js'
import { mergeCharactersDir } from '../characters/read-characters-dir.js'
import { ConfigFileNotFoundError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'
import { findForbiddenKey, forbiddenKeyMessage } from '../shared/find-forbidden-key.js'
import { getLogger, type Logger, registerSecrets } from '../shared/logger.js'
import { findConfigErrors, findConfigWarnings } from './check-config.js'
import { convertZodIssues } from './convert-zod-issues.js'
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
  /**
   * Replace `${VAR}` from the environment. Only text from the config file may: pass false for
   * values that came from elsewhere (an API body merged into a running config), where it is literal.
   * @default true
   */
  expandEnvironment?: boolean
  checks?: ConfigCheck[]
  logger?: Logger
}

export interface ParseConfigResult {
  config: CharpipeConfig
  warnings: ConfigIssue[]
}

/**
 * Validates an already-parsed config object (the YAML's content, or a body of PUT /api/config).
 * Every problem is reported in one pass: when the schema fails, the offending fields are set aside
 * and the cross-field and processor checks still run on the rest, so a wrong provider shows up
 * together with a wrong type elsewhere.
 */
export function parseConfig(raw: unknown, options: ParseConfigOptions = {}): ParseConfigResult {
  const logger = options.logger ?? getLogger('config')
  const forbidden = findForbiddenKey(raw)
  if (forbidden !== undefined) {
    throw new InvalidConfigError([{ path: forbidden, message: forbiddenKeyMessage }], {
      source: options.source,
    })
  }
  const substituted =
    options.expandEnvironment === false
      ? { value: raw ?? {}, missing: [] }
      : substituteEnvVariables(raw ?? {}, options.environment)
  const warnings: ConfigIssue[] = substituted.missing.map(({ path, variable }) => ({
    path,
    message: `environment variable ${variable} is not set; using an empty value`,
  }))

  let value: unknown
  try {
    const merged = mergeCharactersDir(substituted.value, importCardFile)
    value = merged.value
    warnings.push(...merged.skipped.map((issue) => ({ ...issue, message: `skipped: ${issue.message}` })))
  } catch (error) {
    if (error instanceof InvalidConfigError)
      throw new InvalidConfigError(error.issues, { source: options.source })
    throw error
  }
  const parsed = configSchema.safeParse(value)
  if (!parsed.success) {
    const issues = convertZodIssues(parsed.error.issues, value)
    const rest = parseWithoutInvalidFields(value, parsed.error.issues)
    if (rest) {
      for (const issue of runChecks(rest, options)) {
        if (!issues.some((known) => known.path === issue.path)) issues.push(issue)
      }
    }
    throw new InvalidConfigError(issues, { source: options.source })
  }
  const config = parsed.data
  const errors = runChecks(config, options)
  if (errors.length > 0) throw new InvalidConfigError(errors, { source: options.source })

  warnings.push(...findConfigWarnings(config))
  registerSecrets(collectSecrets(config))
  for (const warning of warnings)
    logger.warn({ path: warning.path, source: options.source }, `config: ${warning.path}: ${warning.message}`)
  return { config, warnings }
}

function runChecks(config: CharpipeConfig, options: ParseConfigOptions): ConfigIssue[] {
  return [...findConfigErrors(config), ...(options.checks ?? []).flatMap((check) => check(config))]
}

/** The config with every field the schema refused removed (so its default applies), when that parses. */
function parseWithoutInvalidFields(
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
): CharpipeConfig | undefined {
  const current: unknown = structuredClone(value)
  let pending = issues
  // A removal can reveal another problem one level up (a list left too short): a few rounds suffice.
  for (let round = 0; round < 5; round++) {
    for (const issue of pending) {
      const paths =
        issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path]
      for (const path of paths) if (!removeAt(current, path)) return undefined
    }
    const parsed = configSchema.safeParse(current)
    if (parsed.success) return parsed.data
    pending = parsed.error.issues
  }
  return undefined
}

function removeAt(value: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false
  let parent = value
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return true
    parent = (parent as Record<PropertyKey, unknown>)[key]
  }
  if (parent === null || typeof parent !== 'object') return true
  // A bad list item takes its whole list with it: the list's default applies.
  if (Array.isArray(parent)) return removeAt(value, path.slice(0, -1))
  delete (parent as Record<PropertyKey, unknown>)[path.at(-1) as PropertyKey]
  return true
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

/** The config with every default, as used when no file exists. */
export function defaultConfig(): CharpipeConfig {
  return configSchema.parse({})
}
