/** The chosen public surface, shared by the source check and the built package's check. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

/** What `import { … } from 'charpipe'` offers at run time. */
export const rootRuntimeNames = [
  'AbortedError',
  'BadRequestError',
  'CharpipeError',
  'ConfigFileNotFoundError',
  'HistoryStoreError',
  'InvalidConfigError',
  'StoreUnavailableError',
  'UpstreamHttpError',
  'UpstreamStreamError',
  'UpstreamTimeoutError',
  'UpstreamUnreachableError',
  'builtinProcessors',
  'configSchema',
  'createChatProvider',
  'createCharpipe',
  'createHistoryStore',
  'createInMemoryHistoryStore',
  'createLogger',
  'createMcpTools',
  'createMemoryStore',
  'createProviderFromConfig',
  'createResilientProvider',
  'createSqliteHistoryStore',
  'createToolRegistry',
  'createToolResultContent',
  'defaultConfig',
  'findConfigErrors',
  'findConfigWarnings',
  'isToolResultContent',
  'loadConfig',
  'messageText',
  'parseConfig',
  'parseConfigText',
  'registerProcessor',
  'setLogger',
].sort()

/** The source entry of each subpath of package.json `exports`. */
export function readSubpathEntries(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const entries: Record<string, string> = {}
  for (const [subpath, target] of Object.entries(manifest.exports as Record<string, unknown>)) {
    if (subpath === './package.json') continue
    const file = (target as { import: string }).import.replace(/^\.\/dist\//, '').replace(/\.js$/, '')
    entries[subpath] = file
  }
  return entries
}
