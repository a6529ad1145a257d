/**
 * Bilibili's WBI signature: a request's query gets `wts` (the time in seconds) and `w_rid`, the md5
 * of the sorted, encoded query followed by a 32-character "mixin key". The mixin key is the
 * concatenation of two keys the `nav` API names (the file names of its `wbi_img` image addresses),
 * shuffled by a fixed permutation. Without it `getDanmuInfo` is refused with code -352.
 */
import { createHash } from 'node:crypto'

/** The fixed permutation Bilibili's web client applies to `img_key + sub_key`. */
const mixinKeyOrder = [
  46, 47, 18, 2, 53, 8, 23, 32, 15, 50, 10, 31, 58, 3, 45, 35, 27, 43, 5, 49, 33, 9, 42, 19, 29, 28, 14, 39,
  12, 38, 41, 13, 37, 48, 7, 16, 24, 55, 40, 61, 26, 17, 0, 1, 60, 51, 30, 4, 22, 25, 54, 21, 56, 59, 6, 63,
  57, 62, 11, 36, 20, 34, 44, 52,
]

export interface WbiKeys {
  imgKey: string
  subKey: string
}

/** A key from one of `nav`'s `wbi_img` addresses: the file name without its extension. */
export function wbiKeyOfUrl(url: string): string {
  const file = url.slice(url.lastIndexOf('/') + 1)
  const dot = file.indexOf('.')
  return dot >= 0 ? file.slice(0, dot) : file
}

export function wbiMixinKey(keys: WbiKeys): string {
  const raw = keys.imgKey + keys.subKey
  if (raw.length < 64) throw new Error(`the WBI keys are ${raw.length} characters together, 64 expected`)
  return mixinKeyOrder
    .map((index) => raw[index])
    .join('')
    .slice(0, 32)
}

/**
 * The signed query string of `params`: sorted by name, `!'()*` taken out of the values (as the web
 * client does), `wts` added, and `w_rid` last.
 */
export function signWbiQuery(
  params: Record<string, string | number>,
  mixinKey: string,
  nowSeconds: number,
): string {
  const signed: Record<string, string> = { wts: String(nowSeconds) }
  for (const [name, value] of Object.entries(params)) signed[name] = String(value).replace(/[!'()*]/g, '')
  const query = Object.keys(signed)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(signed[name] as string)}`)
    .join('&')
  const signature = createHash('md5')
    .update(query + mixinKey)
    .digest('hex')
  return `${query}&w_rid=${signature}`
}
