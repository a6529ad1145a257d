/**
 * Loads an optional peer dependency (`ioredis`, `pg`) on first use, so the bare package stays light
 * and users of the SQLite default never need them installed.
 */
import { CharpipeError, type CharpipeErrorOptions } from '../../shared/errors.js'

/**
 * An optional peer that the config asks for is not installed. A setup mistake, not a fault of the
 * server, so its code is `invalid_config` and the message names the package and the command.
 */
class MissingPackageError extends CharpipeError {
  readonly packageName: string

  constructor(packageName: string, neededFor: string, options: CharpipeErrorOptions = {}) {
    super(
      'invalid_config',
      `install ${packageName} to use ${neededFor} (npm install ${packageName}): the package ${packageName} is not installed`,
      options,
    )
    this.name = 'MissingPackageError'
    this.packageName = packageName
  }
}

export interface LoadOptionalPeerOptions {
  /** The npm package name. */
  packageName: string
  /** The config value that needs it, for the error message, e.g. `history.store: redis`. */
  neededFor: string
  /** Replaces the dynamic import (tests simulate a missing package). */
  importModule?: (name: string) => Promise<unknown>
}

export async function loadOptionalPeer<Module>(options: LoadOptionalPeerOptions): Promise<Module> {
  const importModule = options.importModule ?? ((name: string) => import(name))
  try {
    return (await importModule(options.packageName)) as Module
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new MissingPackageError(options.packageName, options.neededFor, { cause: error })
    }
    throw error
  }
}
