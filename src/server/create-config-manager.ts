/**
 * The server's view of config.yaml: what runs now, changes through `PUT /api/config`, and hand edits
 * of the file picked up by a watch. Every change is validated with the one schema (and the extra
 * checks) before anything is written or applied; an invalid one changes nothing.
 */
import { existsSync, type FSWatcher, readFileSync, watch } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { type ConfigCheck, parseConfig, parseConfigFile, parseConfigText } from '../characters/load-config.js'
import { pinCharacterIdOnRename } from '../config/character-id.js'
import { escapeEnvReferences } from '../config/env-substitution.js'
import type { LookupAddresses } from '../config/find-forbidden-url-targets.js'
import {
  type ConfigSource,
  checkConfigChange,
  findNodeLocalFields,
  putBackNodeLocalFields,
} from '../config/gate/index.js'
import { maskSecrets, restoreMaskedSecrets } from '../config/mask-secrets.js'
import type { CharpipeConfig } from '../config/schema.js'
import { BadRequestError, CharpipeError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'
import { findForbiddenKey, forbiddenKeyMessage } from '../shared/find-forbidden-key.js'
import { createLogger, type Logger } from '../shared/logger.js'
import { applyConfigChanges, collectConfigChanges, isPlainObject } from './collect-config-changes.js'
import { applyChangesToYaml, writeFileAtomically } from './write-config-file.js'

/** `GET /api/config/status`: where the running config came from and whether the file is usable. */
export interface ConfigStatus {
  /** The config file as the server was given it (`./config.yaml`, `custom.yaml`). */
  path: string
  /** `defaults`: no file was there when the server started and none has been saved since. */
  source: 'file' | 'defaults'
  /** Set while the file on disk is not valid (a hand edit): the last good config stays in force. */
  file_error: null | { message: string; issues: ConfigIssue[] }
  /**
   * What the running config was accepted with but not as written: a card of `characters_dir` that
   * was skipped (`skipped: …`), a `${VAR}` that is not set, a setting with no effect.
   */
  warnings: ConfigIssue[]
}

export interface ConfigManager {
  /** The running config. */
  current(): CharpipeConfig
  status(): ConfigStatus
  /** The running config with every secret replaced by `***`. */
  masked(): CharpipeConfig
  /**
   * Validates, writes and applies a full or partial config; throws InvalidConfigError and changes
   * nothing when invalid or refused by the trust gate for its source.
   */
  update(body: unknown, options?: UpdateConfigOptions): Promise<CharpipeConfig>
  /** Re-reads the file (what the watch calls); returns whether a new config was applied. */
  reloadFromFile(): Promise<boolean>
  /** Starts watching the file for hand edits. */
  watchFile(): void
  /**
   * Applies a config version another server of the cluster shared (without the fields each server
   * keeps for itself): this server's own are put back, and it passes the trust gate as `cluster`.
   * Throws InvalidConfigError and changes nothing when refused. The file is left as it is.
   */
  adopt(shared: Record<string, unknown>): Promise<CharpipeConfig>
  close(): void
}

export interface UpdateConfigOptions {
  /** Where the change came from (for the trust gate). @default 'admin' */
  source?: Exclude<ConfigSource, 'file' | 'cluster'>
}

export interface CreateConfigManagerOptions {
  configPath: string
  config: CharpipeConfig
  /** Applies a validated config to the running product (the next turn uses it). */
  apply: (config: CharpipeConfig) => Promise<void>
  checks?: ConfigCheck[]
  logger: Logger
  /** Resolves host names for the outbound address check. @default the system resolver */
  lookup?: LookupAddresses
  /** Quiet time after the last file event before the file is read. @default 250 */
  debounceMs?: number
  /** The warnings `config` was parsed with (`GET /api/config/status`). @default none */
  warnings?: ConfigIssue[]
  /** Where `config` came from. @default `file` when the file exists, else `defaults` */
  source?: ConfigStatus['source']
  /**
   * Told of each config applied from the admin API or a hand edit (not of adopted ones), after it
   * applied here: a cluster shares it. A failure fails the API call (the change stays applied here).
   */
  onChange?: (config: CharpipeConfig) => Promise<void>
}

// Re-checking the stored file only to explain a failed save must not log its warnings again.
const quietLogger = createLogger({ level: 'silent' })

export function createConfigManager(options: CreateConfigManagerOptions): ConfigManager {
  const { configPath, logger } = options
  let running = options.config
  let source = options.source ?? (existsSync(configPath) ? 'file' : 'defaults')
  let fileError: ConfigStatus['file_error'] = null
  // The warnings each config was accepted with, read for the running one.
  const warningsOf = new WeakMap<CharpipeConfig, ConfigIssue[]>([[options.config, options.warnings ?? []]])
  // The text last read or written by us: a watch event for the same text is our own write.
  let knownText: string | undefined
  let queue: Promise<unknown> = Promise.resolve()
  let watcher: FSWatcher | undefined
  let timer: NodeJS.Timeout | undefined

  const serialize = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task, task)
    queue = result.catch(() => undefined)
    return result
  }

  const readText = async (): Promise<string | undefined> => {
    try {
      return await readFile(configPath, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  // `raw` is what the file holds (or would hold): its `${VAR}` are expanded here, once.
  const validate = (raw: unknown, source: string) => {
    const parsed = parseConfigFile(raw, { source, checks: options.checks, logger })
    warningsOf.set(parsed.config, parsed.warnings)
    return parsed.config
  }

  const recordFileError = (issues: ConfigIssue[]) => {
    fileError = {
      message: `${configPath} is not valid; the last good config stays in force until the file is fixed`,
      issues,
    }
  }

  // The file on disk could not be read as YAML: that is the problem to report, not the save.
  const blameFile = (error: unknown): unknown => {
    if (!(error instanceof InvalidConfigError)) return error
    recordFileError(error.issues)
    return new InvalidConfigError(error.issues, {
      summary: `${configPath} is not valid YAML (changed by hand?); fix the file before saving`,
    })
  }

  // A save that fails because of what the file already holds (a hand edit) says so, field by field:
  // the page shows the running value, which is not the one at fault.
  const explainSaveError = (error: unknown, stored: Record<string, unknown>): unknown => {
    if (!(error instanceof InvalidConfigError)) return error
    let fileIssues: ConfigIssue[]
    try {
      parseConfigFile(stored, { checks: options.checks, logger: quietLogger })
      return error
    } catch (fileProblem) {
      if (!(fileProblem instanceof InvalidConfigError)) return error
      fileIssues = fileProblem.issues
    }
    recordFileError(fileIssues)
    const inFile = new Set(fileIssues.map((issue) => issue.path))
    const issues = error.issues.map((issue) =>
      inFile.has(issue.path) ? { path: issue.path, message: `in ${configPath}: ${issue.message}` } : issue,
    )
    return new InvalidConfigError(issues, {
      summary: `${configPath} is not valid as it is on disk (changed by hand?); the save cannot be applied until the file is fixed`,
    })
  }

  const apiSource = 'PUT /api/config'
  const update = (body: unknown, updateOptions: UpdateConfigOptions = {}) =>
    serialize(async () => {
      if (!isPlainObject(body)) throw new BadRequestError('the body must be a JSON object of config sections')
      // The whole change is checked before anything is read from it or written.
      const forbidden = findForbiddenKey(body)
      if (forbidden !== undefined)
        throw new InvalidConfigError([{ path: forbidden, message: forbiddenKeyMessage }], {
          source: apiSource,
        })
      const text = (await readText()) ?? ''
      let stored: Record<string, unknown>
      try {
        stored = text.trim() === '' ? {} : parseConfigText(text, configPath)
      } catch (error) {
        throw blameFile(error)
      }
      // `${VAR}` in API input is literal: escaped, so the file keeps it as text (the file's own
      // references, restored for `***` secrets or left untouched, stay references).
      const literal = escapeEnvReferences(body)
      const secretsGiven = mergeSections(running, stored)
      const restored = restoreMaskedSecrets(literal, secretsGiven)
      const changes = collectConfigChanges({ incoming: restored, stored, effective: running })
      const renamedFrom = pinCharacterIdOnRename({
        running: running.character,
        next: { ...running.character, ...(readCharacter(restored) ?? {}) },
      })
      if (renamedFrom !== undefined) changes.push({ path: ['character', 'id'], value: renamedFrom })
      const changed = applyConfigChanges(stored, changes)
      let config: CharpipeConfig
      try {
        config = validate(changed, apiSource)
      } catch (error) {
        throw explainSaveError(error, stored)
      }
      const refused = await checkConfigChange({
        source: updateOptions.source ?? 'admin',
        candidate: config,
        running,
        // File-only fields are compared in the file's own terms: what the change would write there.
        file: { candidate: changed, running: stored },
        secrets: { incoming: literal, stored: secretsGiven },
        lookup: options.lookup,
      })
      if (refused.length > 0) throw new InvalidConfigError(refused, { source: apiSource })
      if (changes.length === 0) {
        await options.apply(config)
        running = config
        return config
      }
      const next = applyChangesToYaml(text, changes)
      await writeFileAtomically(configPath, next)
      knownText = next
      try {
        await options.apply(config)
      } catch (error) {
        // The product could not take it (e.g. a store that does not open): the file goes back too.
        await writeFileAtomically(configPath, text)
        knownText = text
        throw error
      }
      running = config
      source = 'file'
      fileError = null
      logger.info({ fields: changes.map((change) => change.path.join('.')) }, 'config updated')
      await options.onChange?.(config)
      return config
    })

  const reloadFromFile = () =>
    serialize(async () => {
      const text = await readText()
      if (text === undefined) {
        logger.warn({ path: configPath }, 'config file removed; keeping the running config')
        if (source === 'file') {
          fileError = {
            message: `${configPath} was removed; the running config stays in force until it is saved again`,
            issues: [],
          }
        }
        return false
      }
      if (text === knownText) return false
      knownText = text
      let config: CharpipeConfig
      try {
        config = validate(parseConfigText(text, configPath), configPath)
      } catch (error) {
        if (CharpipeError.isInstance(error)) {
          const issues = error instanceof InvalidConfigError ? error.issues : undefined
          recordFileError(issues ?? [{ path: '', message: error.message }])
          logger.error(
            { path: configPath, issues },
            `config file changed but is not valid; keeping the running config: ${error.message}`,
          )
          return false
        }
        throw error
      }
      await options.apply(config)
      running = config
      source = 'file'
      fileError = null
      logger.info({ path: configPath }, 'config file changed; applied from the next turn')
      await options.onChange?.(config).catch((error: unknown) => {
        logger.error({ err: error }, 'the hand edit applies on this server only: it could not be shared')
      })
      return true
    })

  return {
    current: () => running,
    status: () => ({
      path: configPath,
      source,
      file_error: fileError,
      warnings: warningsOf.get(running) ?? [],
    }),
    masked: () => maskSecrets(running),
    update,
    reloadFromFile,
    adopt: (shared) =>
      serialize(async () => {
        const source = 'the cluster'
        const ownFields = findNodeLocalFields(shared)
        if (ownFields.length > 0) throw new InvalidConfigError(ownFields, { source })
        // A parsed config with this server's own fields: never expanded again.
        const candidate = putBackNodeLocalFields(shared, running)
        const parsed = parseConfig(candidate, { source, checks: options.checks, logger })
        const next = parsed.config
        warningsOf.set(next, parsed.warnings)
        const refused = await checkConfigChange({
          source: 'cluster',
          candidate: next,
          running,
          shared,
          lookup: options.lookup,
        })
        if (refused.length > 0) throw new InvalidConfigError(refused, { source })
        await options.apply(next)
        running = next
        return next
      }),
    watchFile() {
      if (watcher) return
      try {
        // Read now, not later: an edit made right after start must not be taken for the original.
        knownText ??= readFileSync(configPath, 'utf8')
      } catch {
        // No file yet: the first one written is new.
      }
      const name = basename(configPath)
      try {
        // The folder, not the file: an atomic save (ours or an editor's) replaces the file's inode.
        watcher = watch(dirname(configPath), (_event, changed) => {
          if (changed && changed.toString() !== name) return
          clearTimeout(timer)
          timer = setTimeout(() => {
            reloadFromFile().catch((error: unknown) => logger.error({ err: error }, 'config reload failed'))
          }, options.debounceMs ?? 250)
        })
        watcher.on('error', (error) => logger.warn({ err: error }, 'config file watch stopped'))
      } catch (error) {
        logger.warn(
          { err: error, path: configPath },
          'cannot watch the config file; hand edits need a restart',
        )
      }
    },
    close() {
      clearTimeout(timer)
      watcher?.close()
      watcher = undefined
    },
  }
}

// Secrets a `***` may refer to: the file's value (which keeps `${ENV}` references) over the running one.
function mergeSections(running: CharpipeConfig, stored: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  for (const [section, value] of Object.entries(running)) {
    const fromFile = stored[section]
    result[section] =
      isPlainObject(value) && isPlainObject(fromFile) ? { ...value, ...fromFile } : (fromFile ?? value)
  }
  return result
}

/** The `character` section of a change, when it carries one. */
function readCharacter(body: Record<string, unknown>): { id?: string; name?: string } | undefined {
  const character = body.character
  if (!isPlainObject(character)) return undefined
  return {
    ...(typeof character.id === 'string' ? { id: character.id } : {}),
    ...(typeof character.name === 'string' ? { name: character.name } : {}),
  }
}
