/**
 * Loading the config for a command: a bad file is reported with every problem by field path and the
 * command exits non-zero; warnings go to the log.
 */
import { type LoadConfigResult, loadConfig } from '../config/load-config.js'
import { CharpipeError, InvalidConfigError } from '../shared/errors.js'

export const DEFAULT_CONFIG_PATH = './config.yaml'

export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`)
  }
}

/** Loads the config or prints why it cannot, then throws `CliExit(2)`. */
export async function loadCliConfig(path = DEFAULT_CONFIG_PATH): Promise<LoadConfigResult> {
  try {
    return await loadConfig(path)
  } catch (error) {
    if (InvalidConfigError.isInstance(error) && error instanceof InvalidConfigError) {
      console.error(error.message)
    } else if (CharpipeError.isInstance(error)) {
      console.error(`charpipe: ${error.message}`)
    } else {
      console.error(`charpipe: cannot read ${path}: ${(error as Error).message}`)
    }
    throw new CliExit(2)
  }
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
