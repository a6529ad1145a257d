/**
 * Loads an optional peer dependency (`ioredis`, `pg`) on first use, so the bare package stays light
 * and users of the SQLite default never need them installed.
 */
import { HistoryStoreError } from './history-store-error.js'

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
      throw new HistoryStoreError(
        `install ${options.packageName} to use ${options.neededFor} (npm install ${options.packageName})`,
        { cause: error },
      )
    }
    throw error
  }
}
