/**
 * token-limiter (400): runs after every text is known (attachments read, injections placed) and
 * cuts whole turns of history, oldest first, until the context fits the budget: the model's context
 * window minus `max_tokens` minus a safety margin. System, persona, memory, injected dialogue,
 * injections and the input are never cut. Each message is counted once; cuts subtract.
 */
import type { ChatMessage } from '../../shared/messages.js'
import type { ContextProcessor, PipelineContext } from '../types.js'
import { checkType, readNumber } from './read-settings.js'

/** The token budget of the prompt for this context. */
export function computeTokenBudget(
  context: Pick<PipelineContext, 'capabilities'>,
  safetyMargin: number,
  maxContextTokens = 0,
) {
  const window =
    maxContextTokens > 0
      ? Math.min(maxContextTokens, context.capabilities.contextWindow)
      : context.capabilities.contextWindow
  return Math.max(0, window - context.capabilities.maxTokens - safetyMargin)
}

/** Groups history message indexes into turns: a turn starts at a user message (or the turn id changes). */
function groupHistoryTurns(messages: readonly ChatMessage[]): number[][] {
  const turns: number[][] = []
  let current: number[] | undefined
  let currentTurnId: unknown
  messages.forEach((message, index) => {
    if (message.source !== 'history') return
    const turnId = message.meta?.turn
    const startsTurn = !current || (turnId !== undefined ? turnId !== currentTurnId : message.role === 'user')
    if (startsTurn) {
      current = []
      turns.push(current)
      currentTurnId = turnId
    }
    current!.push(index)
  })
  return turns
}

export const tokenLimiter: ContextProcessor = {
  id: 'token-limiter',
  name: 'Token 限制器',
  description:
    'Cuts the oldest whole turns of history until the context fits the model (never system, memory or input).',
  priority: 400,
  defaultEnabled: true,
  configFields: [
    {
      key: 'safety_margin',
      label: 'Safety margin',
      type: 'number',
      min: 0,
      max: 1_000_000,
      integer: true,
      default: 256,
      description: 'Tokens kept free on top of max_tokens (estimates may be off a little).',
    },
    {
      key: 'max_context_tokens',
      label: 'Context cap',
      type: 'number',
      min: 0,
      max: 10_000_000,
      integer: true,
      default: 0,
      description: 'Caps the context below the model window (0: the window).',
    },
  ],
  validateSettings(settings) {
    return [
      checkType(settings, 'safety_margin', 'number'),
      checkType(settings, 'max_context_tokens', 'number'),
    ].filter((issue) => issue !== undefined)
  },
  execute(context, settings) {
    const budget = computeTokenBudget(
      context,
      readNumber(settings, 'safety_margin', 256),
      readNumber(settings, 'max_context_tokens', 0),
    )
    const counter = context.services.tokenCounter
    const counts = context.messages.map((message) => counter.countMessage(message))
    let total = counts.reduce((sum, count) => sum + count, 0)
    if (total <= budget) return
    const turns = groupHistoryTurns(context.messages)
    const cut = new Set<number>()
    let cutTurns = 0
    for (const turn of turns) {
      if (total <= budget) break
      for (const index of turn) {
        cut.add(index)
        total -= counts[index]!
      }
      cutTurns++
    }
    context.messages = context.messages.filter((_, index) => !cut.has(index))
    const level = total > budget ? 'warn' : 'info'
    const message =
      total > budget
        ? `cut all ${cutTurns} history turns (${cut.size} messages); still ${total} tokens over a budget of ${budget}`
        : `cut the oldest ${cutTurns} history turns (${cut.size} messages) to fit ${total} of ${budget} tokens`
    context.logs.push({ processorId: 'token-limiter', level, message, details: { budget, total, cutTurns } })
    if (level === 'warn') context.services.logger.warn({ processor: 'token-limiter', budget, total }, message)
  },
}
