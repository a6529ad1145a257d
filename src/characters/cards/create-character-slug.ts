/**
 * The id an imported card gets, from its name: the same name always gives the same id, and the id
 * is safe as a YAML key and as a file name on every system. Latin letters lose their accents and
 * case (`Zoë Smith` → `zoe-smith`); other scripts stay as they are (`小助手` → `小助手`); a name with
 * no letter or digit at all gets `character-` and a hash of the name.
 */
import { createHash } from 'node:crypto'

const maxLength = 64
// Names Windows refuses as file names whatever the extension, and plain YAML keys that read as a
// number, a boolean or null when written unquoted.
const reservedNames = /^(con|prn|aux|nul|com\d|lpt\d|\d+|true|false|null|yes|no|on|off|y|n)$/

export function createCharacterSlug(name: string): string {
  const slug = Array.from(
    name
      .normalize('NFKD')
      // Accents go from Latin letters only: a kana's voicing mark or a Hangul syllable is kept whole.
      .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
      .normalize('NFC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, ''),
  )
    .slice(0, maxLength)
    .join('')
    .replace(/-+$/, '')
  if (!slug) return `character-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`
  return reservedNames.test(slug) ? `${slug}-character` : slug
}
