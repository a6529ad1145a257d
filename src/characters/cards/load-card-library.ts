/**
 * The card library, loaded on first use: the config loader reaches the card importer (card files in
 * `characters_dir`), and a bare `import('charpipe')` must not load a dependency it may never need.
 * Loaded with `require` because the card functions are synchronous; the package ships CommonJS too.
 */
import { createRequire } from 'node:module'
import type { CCardLib as CardLibrary } from '@risuai/ccardlib'

let library: typeof CardLibrary | undefined

export function loadCardLibrary(): typeof CardLibrary {
  library ??= (createRequire(import.meta.url)('@risuai/ccardlib') as { CCardLib: typeof CardLibrary })
    .CCardLib
  return library
}
