/**
 * Decides whether bytes are text we can put in a prompt: valid UTF-8 (a BOM is dropped) without
 * NUL bytes. Anything else is binary and stays out of the prompt.
 */
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

export function decodeTextFile(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}
