/**
 * The card library (`@risuai/ccardlib`) is required with the first card read or written, not with
 * `import('charpipe')`: most programs never touch a Character Card. Its CommonJS build is the one
 * used, by every caller through here, so there is one instance.
 */
import { createRequire } from 'node:module'
import type { CCardLib } from '@risuai/ccardlib'

const require = createRequire(import.meta.url)
let loaded: typeof CCardLib | undefined

export function loadCardLibrary(): typeof CCardLib {
  loaded ??= (require('@risuai/ccardlib') as typeof import('@risuai/ccardlib')).CCardLib
  return loaded
}
