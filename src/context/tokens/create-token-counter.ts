/**
 * Token counting for the limiter and the preview: exact for OpenAI models (gpt-tokenizer, with the
 * encoding the model uses), a calibrated estimate for the rest. Counts of messages with parts or
 * tool calls are cached per message object, keyed also on its content so a processor that replaces
 * the content gets a fresh count. Texts are cached per text: every turn rebuilds its messages, but
 * the system prompt and the history are the same texts turn after turn, so most of a context is
 * counted once per counter (one per config).
 *
 * The BPE tokenizer's cost is quadratic in one unbroken run of text (40 K characters of Chinese
 * take seconds), so exact counting is bounded: a text is fed to it in windows cut before a space,
 * an unbroken run in pieces of at most `maxRunCharacters`, and a text longer than
 * `maxExactCharacters` is estimated (linear, and never below the exact count) instead.
 */
import { createRequire } from 'node:module'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import type { ChatMessage } from '../../shared/messages.js'
import type { ModelCapabilities, TokenCounter } from '../types.js'

type Encoding = 'o200k_base' | 'cl100k_base'

/** Role markers and separators each chat message costs on top of its text (OpenAI: 3-4). */
const messageOverhead = 4
/** What an image part costs: OpenAI's high-detail 1024×1024 tile count (765) rounded up. */
const imageTokens = 800

const require = createRequire(import.meta.url)
const encoders = new Map<Encoding, (text: string) => number>()

// Loaded on first use: the encodings take a few hundred milliseconds to parse and most models
// never need them.
function loadEncoder(encoding: Encoding): (text: string) => number {
  let count = encoders.get(encoding)
  if (!count) {
    const module = require(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens(text: string): number }
    count = (text: string) => module.countTokens(text)
    encoders.set(encoding, count)
  }
  return count
}

/** The OpenAI encoding a model name uses, or undefined when it is not an OpenAI model. */
export function findOpenAIEncoding(model: string): Encoding | undefined {
  const name = model.toLowerCase().replace(/^openai\//, '')
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(name)) return 'o200k_base'
  if (/^(gpt-4|gpt-3\.5|text-embedding)/.test(name)) return 'cl100k_base'
  return undefined
}

/** Longest text counted by the tokenizer; longer ones are estimated. */
export const maxExactCharacters = 16_000
/** Longest window handed to the tokenizer at once. */
export const maxWindowCharacters = 1_000
/** Longest unbroken run (no whitespace) handed to the tokenizer at once. */
export const maxRunCharacters = 128

function isWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13
}

/**
 * Sums `count` over windows of `text` so that no call sees more than `maxWindowCharacters`, nor an
 * unbroken run longer than `maxRunCharacters`. Windows end before a space, where the tokenizer's
 * own pre-split would cut too, so prose counts exactly; only a run cut by length may differ by a
 * token at the cut.
 */
export function countTextInWindows(text: string, count: (text: string) => number): number {
  if (text.length <= maxRunCharacters) return count(text)
  let tokens = 0
  let start = 0
  let lastSpace = -1
  let runStart = 0
  let runIsSpace = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    const space = isWhitespace(code)
    if (space !== runIsSpace) {
      runStart = index
      runIsSpace = space
    }
    // Never cut between the halves of a surrogate pair.
    if (!(code >= 0xdc00 && code <= 0xdfff)) {
      if (index - runStart >= maxRunCharacters) {
        tokens += count(text.slice(start, index))
        start = index
        runStart = index
      } else if (index - start >= maxWindowCharacters) {
        const end = lastSpace > start ? lastSpace : index
        tokens += count(text.slice(start, end))
        start = end
      }
    }
    if (space) lastSpace = index
  }
  return tokens + count(text.slice(start))
}

/** Exact in bounded windows up to `maxExactCharacters`, the estimate past it. */
function boundExactCount(count: (text: string) => number): (text: string) => number {
  return (text) => (text.length > maxExactCharacters ? estimateTokens(text) : countTextInWindows(text, count))
}

/** The text cache is dropped whole past this many cached characters (bounds its memory). */
const maxCachedCharacters = 4_000_000
/** Texts shorter than this are counted each time: cheaper than hashing them into the cache. */
const minCachedLength = 8

/** Wraps `count` with a per-text cache. */
function cacheCounts(count: (text: string) => number): (text: string) => number {
  let cache = new Map<string, number>()
  let cachedCharacters = 0
  return (text) => {
    if (text.length < minCachedLength) return count(text)
    const cached = cache.get(text)
    if (cached !== undefined) return cached
    const tokens = count(text)
    cachedCharacters += text.length
    if (cachedCharacters > maxCachedCharacters) {
      cache = new Map()
      cachedCharacters = text.length
    }
    cache.set(text, tokens)
    return tokens
  }
}

interface CachedCount {
  content: ChatMessage['content']
  tokens: number
}

/** A counter for the model of `capabilities`. */
export function createTokenCounter(capabilities: Pick<ModelCapabilities, 'model' | 'apiType'>): TokenCounter {
  const encoding = capabilities.apiType === 'openai' ? findOpenAIEncoding(capabilities.model) : undefined
  const countText = cacheCounts(encoding ? boundExactCount(loadEncoder(encoding)) : estimateTokens)
  const cache = new WeakMap<ChatMessage, CachedCount>()

  const countContent = (content: ChatMessage['content']): number => {
    if (typeof content === 'string') return countText(content)
    let tokens = 0
    for (const part of content) {
      if (part.type === 'text') tokens += countText(part.text)
      else if (part.type === 'image') tokens += imageTokens
      else tokens += countText(part.name ?? part.assetRef)
    }
    return tokens
  }

  return {
    countText,
    countMessage(message) {
      // Text content is cached per text already; a second cache entry per message costs more.
      if (typeof message.content === 'string' && !message.toolCalls) {
        return messageOverhead + countText(message.content)
      }
      const cached = cache.get(message)
      if (cached && cached.content === message.content) return cached.tokens
      let tokens = messageOverhead + countContent(message.content)
      for (const call of message.toolCalls ?? [])
        tokens += countText(call.name + JSON.stringify(call.arguments))
      cache.set(message, { content: message.content, tokens })
      return tokens
    },
  }
}
