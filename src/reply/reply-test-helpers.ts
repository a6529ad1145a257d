/**
 * Helpers shared by the reply parser's tests: the shared test vectors, parser options built from a
 * config the way the engine builds them, and runs of one output split into chunks.
 */
import { readFileSync } from 'node:fs'
import { type CharpipeConfigInput, configSchema } from '../config/schema.js'
import { createReplyParser } from './create-reply-parser.js'
import { replyParserOptionsFromConfig } from './reply-parser-options-from-config.js'
import type { ReplyEvent, ReplyParserOptions } from './types.js'

export interface VectorOptions {
  min_chars?: number
  max_chars?: number
  first_clause_chars?: number
  early_release?: boolean
  inline_emotion_tags?: boolean
}

export interface SentenceVector {
  text: string
  sentences: string[]
  options?: VectorOptions
}

export interface ReplyVector {
  reply_format: 'json' | 'prefix' | 'auto' | 'plain'
  chunks: string[]
  display: string
  emotion: string
  sentences: [string, string][]
  options?: VectorOptions
}

export interface ReplyVectors {
  sentences: SentenceVector[]
  replies: ReplyVector[]
}

/** The parser vectors, kept in `__fixtures__/` (their README says how to read them). */
export function loadReplyVectors(): ReplyVectors {
  const url = new URL('./__fixtures__/reply-parsing.json', import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ReplyVectors
}

export interface LogLine {
  level: 'debug' | 'warn'
  message: string
}

/** Parser options from a config (defaults of config.yaml plus the given fields); logs are collected. */
export function createTestOptions(
  format: ReplyParserOptions['replyFormat'],
  options: VectorOptions & { speech_filters?: ('markdown' | 'emoji' | 'stage_directions')[] } = {},
  logs: LogLine[] = [],
): ReplyParserOptions {
  const { inline_emotion_tags, ...sentence } = options
  const input: CharpipeConfigInput = {
    character: {
      reply_format: format,
      ...(inline_emotion_tags === undefined ? {} : { inline_emotion_tags }),
    },
    sentence,
  }
  return replyParserOptionsFromConfig(configSchema.parse(input), (level, message) =>
    logs.push({ level, message }),
  )
}

export interface ReplyRun {
  events: ReplyEvent[]
  display: string
  emotions: string[]
  sentences: [string, string][]
  indexes: number[]
  done: { text: string; emotion: string } | undefined
  /** Every event but display deltas, in order (they must not depend on chunking). */
  structure: ReplyEvent[]
}

/** Feeds the chunks to a fresh parser and sums up the events. */
export function runReply(chunks: readonly string[], options: ReplyParserOptions): ReplyRun {
  const parser = createReplyParser(options)
  const events: ReplyEvent[] = []
  for (const chunk of chunks) events.push(...parser.push(chunk))
  events.push(...parser.end())
  const run: ReplyRun = {
    events,
    display: '',
    emotions: [],
    sentences: [],
    indexes: [],
    done: undefined,
    structure: [],
  }
  for (const event of events) {
    if (event.type === 'display-delta') run.display += event.text
    else run.structure.push(event)
    if (event.type === 'emotion') run.emotions.push(event.emotion)
    if (event.type === 'sentence') {
      run.sentences.push([event.text, event.emotion])
      run.indexes.push(event.index)
    }
    if (event.type === 'done') run.done = { text: event.text, emotion: event.emotion }
  }
  return run
}

/** Splits text at the given cut positions (any order, duplicates allowed). */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const positions = [...new Set(cuts.map((cut) => Math.max(0, Math.min(text.length, cut))))].sort(
    (a, b) => a - b,
  )
  const chunks: string[] = []
  let start = 0
  for (const position of positions) {
    chunks.push(text.slice(start, position))
    start = position
  }
  chunks.push(text.slice(start))
  return chunks
}

/** One chunk per UTF-16 code unit: the harshest split (it even cuts surrogate pairs). */
export function splitEveryUnit(text: string): string[] {
  return Array.from({ length: text.length }, (_, index) => text[index]!)
}
