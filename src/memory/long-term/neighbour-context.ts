/**
 * The context a memory is indexed with: its neighbours in its scope, the memory before and the one
 * after, each kept only up to what of it would be indexed at all. Every store builds it the same
 * way, so every store ranks the same memories alike.
 */
import { capIndexedText, maxIndexedCharacters } from './segment-text.js'

/** Each neighbour's share of a memory's context: what of it would be indexed at all. */
const maxContextPartCharacters = maxIndexedCharacters / 2

export function capContext(text: string): string {
  return capIndexedText(text, maxContextPartCharacters)
}

/** The context of a memory that already has its predecessor's text, with its successor's added. */
export function joinContext(context: string, next: string): string {
  return context ? `${capContext(context)}\n${capContext(next)}` : capContext(next)
}
