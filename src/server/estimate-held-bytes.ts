/**
 * What holding something for a reader costs in memory, beyond the bytes of its text: the figures the
 * WebSocket writer and the bounded HTTP stream writer charge to the reader ledger
 * (create-reader-ledger.ts). Estimates for 64-bit V8, on the high side: a bound that counts only the
 * text lets a reader who never reads hold several times its bound (a reply in 6-character pieces is
 * ~34,000 frames, each with its own objects).
 */

/**
 * One frame handed to a `ws` socket and not yet written out: ws writes a header and the payload
 * (two Buffers, each a JS object with its backing store), and the stream's buffer keeps an entry
 * (chunk, encoding, callback) for each write.
 */
export const socketFrameOverheadBytes = 320

/** One message waiting in a queue: its entry, the message object and its string's header. */
export const queuedMessageOverheadBytes = 160

/**
 * A string on the V8 heap: at most 2 bytes a character (1 when every character is Latin-1), plus
 * its header. Counted at 2 so a text in any script is not under-counted.
 */
export function estimateStringBytes(text: string): number {
  return text.length * 2 + 16
}
