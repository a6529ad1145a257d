/**
 * A light English stemmer: folds plurals, -ing, -ed and a final -e so that "paints", "painted",
 * "painting" and "paint" meet, and "loved"/"loving"/"love" meet. Much smaller than Porter and good
 * enough for matching conversation snippets; it only has to be consistent between index and query.
 */
export function stemEnglishWord(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word
  let stem = word
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2)
  else if (stem.endsWith('s') && !/(ss|us|is)$/.test(stem)) stem = stem.slice(0, -1)
  if (stem.endsWith('ing') && stem.length > 5) stem = stem.slice(0, -3)
  else if (stem.endsWith('ied') && stem.length > 4) stem = `${stem.slice(0, -3)}y`
  else if (stem.endsWith('ed') && stem.length > 4) stem = stem.slice(0, -2)
  // "running" → "runn" → "run", but keep "ll"/"ss" ("fell", "miss").
  if (/([b-df-hj-km-np-rtv-z])\1$/.test(stem) && !/(ll|ss|zz)$/.test(stem)) stem = stem.slice(0, -1)
  if (stem.endsWith('e') && stem.length > 3) stem = stem.slice(0, -1)
  return stem
}
