/**
 * Reading config.yaml: YAML → `${ENV}` substitution → schema → cross-field and extra checks → soft
 * warnings, with every problem of the file reported at once by field path. A missing file means the
 * defaults (provider `mock`), unless the caller requires the file (a path the user named).
 *
 * `${ENV}` is expanded in one place only: the file's own content, once, as it is read
 * (`parseConfigFile`). `parseConfig` takes parsed objects (a config given to `createCharpipe`, the
 * running config again on reload, a cluster's version) and never expands: text that came from
 * elsewhere (an API body, a card, a file of `characters_dir`) stays literal however often it is parsed.
 *
 * It lives in characters/, one layer above config/, because a config is read with the cards and files
 * of its `characters_dir` merged in: config/ holds the schema and the checks, and knows no card.
 */
import { readFile } from 'node:fs/promises'
import type { z } from 'zod'
import { applyLanguageDefaults } from '../config/apply-language-defaults.js'
import { findConfigErrors, findConfigWarnings } from '../config/check-config.js'
import { convertZodIssues } from '../config/convert-zod-issues.js'
import { substituteEnvVariables } from '../config/env-substitution.js'
import { findNearFile } from '../config/find-near-file.js'
import { collectSecrets } from '../config/mask-secrets.js'
import { parseConfigText } from '../config/parse-config-text.js'
import { readMachineLanguage } from '../config/read-machine-language.js'
import { type CharpipeConfig, configSchema } from '../config/schema.js'
import { ConfigFileNotFoundError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'
import { findForbiddenKey, forbiddenKeyMessage } from '../shared/find-forbidden-key.js'
import type { Language } from '../shared/language/index.js'
import { getLogger, type Logger, registerSecrets } from '../shared/logger.js'
import { importCardFile } from './import-card-file.js'
import { mergeCharactersDir } from './read-characters-dir.js'

/** An extra check run after the schema, e.g. processors validating their own options. */
export type ConfigCheck = (config: CharpipeConfig) => ConfigIssue[]

export interface ParseConfigOptions {
  /** Named in error messages (a file path, "PUT /api/config"). */
  source?: string
  checks?: ConfigCheck[]
  logger?: Logger
  /** Problems found before the object was parsed (unset variables of the file), reported with its own. */
  warnings?: ConfigIssue[]
  /** The language of the default character when the config names none. @default the machine's locale */
  machineLanguage?: Language
}

export interface ParseConfigFileOptions extends Omit<ParseConfigOptions, 'warnings'> {
  /** Where `${VAR}` is read from. @default process.env */
  environment?: Record<string, string | undefined>
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
  const warnings: ConfigIssue[] = [...(options.warnings ?? [])]
  let value: unknown
  try {
    const merged = mergeCharactersDir(raw ?? {}, importCardFile)
    value = applyLanguageDefaults(merged.value, options.machineLanguage ?? readMachineLanguage())
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

/**
 * Validates the content of a config file (its YAML read as an object, before any substitution):
 * the one place `${VAR}` is expanded, and `$${VAR}` becomes the literal text `${VAR}`.
 */
export function parseConfigFile(raw: unknown, options: ParseConfigFileOptions = {}): ParseConfigResult {
  const { environment, ...parseOptions } = options
  const forbidden = findForbiddenKey(raw)
  if (forbidden !== undefined) {
    throw new InvalidConfigError([{ path: forbidden, message: forbiddenKeyMessage }], {
      source: options.source,
    })
  }
  const substituted = substituteEnvVariables(raw ?? {}, environment)
  const warnings = substituted.missing.map(({ path, variable }) => ({
    path,
    message: `environment variable ${variable} is not set; using an empty value`,
  }))
  return parseConfig(substituted.value, { ...parseOptions, warnings })
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

export interface LoadConfigOptions extends Omit<ParseConfigFileOptions, 'source'> {
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
    return { ...parseConfigFile({}, { ...parseOptions, source: path }), raw: {}, fromFile: false, path }
  }
  const raw = parseConfigText(text, path)
  return { ...parseConfigFile(raw, { ...parseOptions, source: path }), raw, fromFile: true, path }
}

export { parseConfigText }

/** The config with every default, as used when no file exists. */
export function defaultConfig(): CharpipeConfig {
  return configSchema.parse({})
}
