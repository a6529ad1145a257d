/**
 * Appends a piece to a text that grows by many small pieces (a reply streamed in tokens), keeping it
 * about as small as its characters. V8 joins strings lazily: `text += piece` makes a node that points
 * at both, so a reply streamed in 34,000 six-character pieces stays 34,000 nodes and pieces, about
 * eight bytes a character instead of two, in each of the texts a turn keeps. Matching a regular
 * expression flattens such a tree in place into one string (reading a character did on Node 20, not
 * on 22 and later); doing it each time the text has grown by an eighth keeps the copying linear and
 * what is not yet flat to an eighth of the text (two eighths when long pieces came between).
 */

// Below this length a tree of pieces costs a few KB: not worth a copy.
const minFlattenLength = 8192

// Matches at once; what it costs is the flattening of its subject, which it needs.
const flattenPattern = /^/

// A piece this long costs its node a few percent: a text made of such pieces is left as it is (a
// 200,000-character reply handed on in slices of 4,096 was copied 16 times per doubling for nothing).
const smallPieceLength = 64

export function appendText(text: string, piece: string): string {
  const joined = text + piece
  if (joined.length < minFlattenLength || piece.length >= smallPieceLength) return joined
  // An eighth of the highest power of two in the length: a step that doubles as the text does.
  const step = 1 << (28 - Math.clz32(joined.length))
  if (Math.floor(joined.length / step) !== Math.floor(text.length / step)) flattenPattern.test(joined)
  return joined
}
