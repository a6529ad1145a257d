/**
 * A fetch `Response`'s body as text, read only up to a bound. `response.text()` and `.json()` read
 * whatever arrives, and fetch decompresses on the way: a gzip body of kilobytes from a server
 * outside (a chat platform's API, an upstream's error page) can fill the heap. Past `maxBytes` the
 * read stops and the connection is let go.
 */
export interface BoundedText {
  /** The body, or its first `maxBytes` bytes as text when it was longer. */
  text: string
  /** False when the body was longer than `maxBytes` and was cut. */
  complete: boolean
}

export async function readBoundedText(response: Response, maxBytes: number): Promise<BoundedText> {
  const reader = response.body?.getReader()
  if (!reader) return { text: '', complete: true }
  const chunks: Uint8Array[] = []
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (bytes + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - bytes))
      await reader.cancel().catch(() => {})
      return { text: decode(chunks), complete: false }
    }
    chunks.push(value)
    bytes += value.length
  }
  return { text: decode(chunks), complete: true }
}

/** As `response.text()` decodes: UTF-8, a leading byte order mark dropped. */
function decode(chunks: Uint8Array[]): string {
  return new TextDecoder().decode(Buffer.concat(chunks))
}
