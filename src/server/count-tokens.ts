/**
 * Token counts for the `usage` of OpenAI-compatible answers. The engine does not report the
 * upstream's usage per turn, so these are counted with the GPT tokenizer over the user's input and
 * the reply: close for OpenAI models, an estimate for others.
 */
import { encode } from 'gpt-tokenizer'

export function countTokens(text: string): number {
  return text ? encode(text).length : 0
}
