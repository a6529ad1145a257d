/**
 * RE2 (`re2js`), loaded with the first pattern to check or compile: most characters have no
 * patterns, and loading it costs as much as a tenth of `import('charpipe')`.
 */
import { createRequire } from 'node:module'
import type { RE2JS } from 're2js'

const require = createRequire(import.meta.url)
let loaded: typeof RE2JS | undefined

export function loadRe2(): typeof RE2JS {
  loaded ??= (require('re2js') as typeof import('re2js')).RE2JS
  return loaded
}
