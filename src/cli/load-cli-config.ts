/**
 * Loading the config for a command: a bad file is reported with every problem by field path and the
 * command exits non-zero. A path given with `--config` must exist (a typo must not silently run the
 * defaults); only the implicit `./config.yaml` may be absent. Soft warnings are printed once, as
 * readable lines.
 */
import { type LoadConfigResult, loadConfig } from '../characters/load-config.js'
import { checkPipelineConfig } from '../context/check-pipeline-config.js'
import { CharpipeError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'
import { createLogger } from '../shared/logger.js'

export const DEFAULT_CONFIG_PATH = './config.yaml'

class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`)
  }
}

export interface LoadCliConfigOptions {
  /** Print soft warnings to stderr; off when the command prints them itself. @default true */
  printWarnings?: boolean
}

/** Readable lines for soft warnings: `warning: character.injected_history: has 3 entries; …`. */
export function formatWarnings(warnings: readonly ConfigIssue[]): string[] {
  return warnings.map((warning) => `warning: ${warning.path}: ${warning.message}`)
}

/**
 * Loads the config named by `--config` (undefined: the implicit default, which may be absent) or
 * prints why it cannot, then throws `CliExit(2)`.
 */
export async function loadCliConfig(
  path: string | undefined,
  options: LoadCliConfigOptions = {},
): Promise<LoadConfigResult> {
  const file = path ?? DEFAULT_CONFIG_PATH
  let result: LoadConfigResult
  try {
    result = await loadConfig(file, {
      required: path !== undefined,
      checks: [checkPipelineConfig],
      // Warnings are returned and printed below as lines, not logged as records.
      logger: createLogger({ level: 'silent' }),
    })
  } catch (error) {
    if (InvalidConfigError.isInstance(error) && error instanceof InvalidConfigError) {
      console.error(error.message)
    } else if (CharpipeError.isInstance(error)) {
      console.error(`charpipe: ${error.message}`)
    } else {
      console.error(`charpipe: cannot read ${file}: ${(error as Error).message}`)
    }
    throw new CliExit(2)
  }
  if (options.printWarnings !== false) for (const line of formatWarnings(result.warnings)) console.error(line)
  return result
}

/** Runs a command body, turning `CliExit` into its exit code. */
export async function runCommand(body: () => Promise<number>): Promise<number> {
  try {
    return await body()
  } catch (error) {
    if (error instanceof CliExit) return error.exitCode
    throw error
  }
}
