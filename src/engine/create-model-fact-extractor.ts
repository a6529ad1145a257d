/**
 * The `FactExtractor` of `memory.extract: true`: asks the configured model, through the same
 * provider layer as the turns, which facts of a finished turn are worth keeping and what to do with
 * the related stored memories (add / update / delete / none), as JSON. The reply is collected, not
 * streamed anywhere: nothing of it reaches the turn's events. A failed call, a timeout or a reply
 * that is not the JSON asked for is logged and counts as "nothing to remember", so the worst case
 * is a turn that adds no facts. The request is worded in the character's language (`extract`'s
 * `language`, Chinese when none is given).
 */
import * as z from 'zod'
import type { ExtractedFactDecision, FactExtractor } from '../memory/index.js'
import type { MemoryRecord } from '../memory/types.js'
import type { ChatProvider } from '../providers/types.js'
import { type Language, readMemoryTexts } from '../shared/language/index.js'
import type { Logger } from '../shared/logger.js'
import type { ChatMessage } from '../shared/messages.js'
import { readJsonReply } from './read-json-reply.js'

export interface CreateModelFactExtractorOptions {
  provider: ChatProvider
  /** Longest wait for one extraction (`memory.extract_timeout_ms`). */
  timeoutMs: number
  logger: Logger
  /** Aborts a running extraction (the engine closing). */
  signal?: AbortSignal
  /** Most tokens of the model's answer. @default 1024 */
  maxTokens?: number
}

/** Tells a Chinese extraction request apart from a turn's (used by tests and visible in logs). */
export const factExtractionMarker = readMemoryTexts('zh').extractionMarker

const decisionSchema = z.object({
  event: z.enum(['add', 'update', 'delete', 'none']),
  id: z.union([z.string(), z.number()]).optional(),
  text: z.string().optional(),
})

const decisionListSchema = z.array(decisionSchema)

function buildMessages(
  turnText: string,
  existing: Pick<MemoryRecord, 'id' | 'text'>[],
  language: Language,
): ChatMessage[] {
  const texts = readMemoryTexts(language)
  const known = existing.length
    ? existing.map((memory) => `[${memory.id}] ${memory.text.replace(/\s+/g, ' ')}`).join('\n')
    : undefined
  return [
    { role: 'system', content: texts.extractionPrompt },
    { role: 'user', content: texts.extractionRequest(known, turnText) },
  ]
}

/** The decisions in a model reply; throws naming what is wrong when it is not the JSON asked for. */
export function parseFactDecisions(reply: string): ExtractedFactDecision[] {
  const value = readJsonReply(reply)
  const list = Array.isArray(value) ? value : (value as { memory?: unknown } | null)?.memory
  if (!Array.isArray(list)) throw new Error('the extraction reply has no "memory" list')
  const parsed = decisionListSchema.safeParse(list)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`the extraction reply is wrong at memory.${issue?.path.join('.')}: ${issue?.message}`)
  }
  return parsed.data.map((decision) => ({
    event: decision.event,
    text: decision.text ?? '',
    ...(decision.id !== undefined ? { id: String(decision.id) } : {}),
  }))
}

async function collectText(
  options: CreateModelFactExtractorOptions,
  messages: ChatMessage[],
  signal: AbortSignal,
): Promise<string> {
  let text = ''
  const stream = options.provider.streamChat(
    { messages, temperature: 0, maxTokens: options.maxTokens ?? 1024 },
    { signal },
  )
  for await (const event of stream) if (event.type === 'text-delta') text += event.text
  return text
}

export function createModelFactExtractor(options: CreateModelFactExtractorOptions): FactExtractor {
  return {
    async extract(turnText, existing, extractOptions = {}) {
      // A timer rather than AbortSignal.timeout: tests can move it with fake timers.
      const deadline = new AbortController()
      const timer = setTimeout(
        () => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        options.timeoutMs,
      )
      timer.unref?.()
      const timeout = deadline.signal
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
      try {
        const reply = await collectText(
          options,
          buildMessages(turnText, existing, extractOptions.language ?? 'zh'),
          signal,
        )
        const decisions = parseFactDecisions(reply)
        options.logger.debug(
          { decisions: decisions.length, shown: existing.length },
          'memory: facts extracted from the turn',
        )
        return decisions
      } catch (error) {
        const reason = timeout.aborted
          ? `no answer within ${options.timeoutMs} ms`
          : error instanceof Error
            ? error.message
            : String(error)
        options.logger.warn({ reason }, 'memory: fact extraction failed; this turn adds no facts')
        return []
      } finally {
        clearTimeout(timer)
      }
    },
  }
}
