/**
 * memory-retriever (150): the top `memory.top_k` long-term memories and knowledge chunks for the
 * input. They go on `sharedData` for the assembler (end of the system prompt, seed 000) and into
 * the logs with kind, source and score for the preview. Recall has `memory.recall_timeout_ms` to
 * answer; past it the turn goes on without memories, and `sharedData` says so for its `llm_done`.
 */
import { recallWithinBudget } from '../../memory/long-term/recall-within-budget.js'
import { memoryScopeOf } from '../../memory/memory-scope-of.js'
import { findRecallScopes, searchScopes } from '../../memory/people/find-recall-scopes.js'
import type { MemoryHit } from '../../memory/types.js'
import { CharpipeError } from '../../shared/errors.js'
import type { ChatMessage } from '../../shared/messages.js'
import type { ContextProcessor } from '../types.js'
import { checkType, readNumber } from './read-settings.js'

/**
 * Turns whose messages the session-loader (100) put in the context: their memories would repeat
 * what the history already shows, so they are not retrieved again.
 */
function findLoadedTurns(messages: readonly ChatMessage[]): Set<string> {
  const turns = new Set<string>()
  for (const message of messages) {
    const turn = message.meta?.turn
    if (message.source === 'history' && typeof turn === 'string') turns.add(turn)
  }
  return turns
}

/** sharedData key: the retrieved `MemoryHit[]`, best first. */
export const memoryHitsKey = 'memory.hits'

/** sharedData key: `timed_out` when recall missed its budget (absent otherwise). */
const memoryRecallKey = 'memory.recall'

/** What the turn's `llm_done` says of its recall: `timed_out`, or nothing. */
export function readRecallOutcome(sharedData: ReadonlyMap<string, unknown>): 'timed_out' | undefined {
  return sharedData.get(memoryRecallKey) === 'timed_out' ? 'timed_out' : undefined
}

export const memoryRetriever: ContextProcessor = {
  id: 'memory-retriever',
  name: '长期记忆检索',
  description: 'Retrieves relevant long-term memories and knowledge for the input (memory.top_k).',
  priority: 150,
  defaultEnabled: true,
  configFields: [
    {
      key: 'top_k',
      label: 'Memories',
      type: 'number',
      min: 0,
      max: 100,
      integer: true,
      description: 'Overrides memory.top_k when set.',
    },
    {
      key: 'token_budget',
      label: 'Token budget',
      type: 'number',
      min: 0,
      max: 1_000_000,
      integer: true,
      default: 800,
      description: 'Most tokens the retrieved memories may take.',
    },
  ],
  validateSettings(settings) {
    return [checkType(settings, 'top_k', 'number'), checkType(settings, 'token_budget', 'number')].filter(
      (issue) => issue !== undefined,
    )
  },
  async execute(context, settings) {
    const retriever = context.services.memory
    const k = readNumber(settings, 'top_k', context.config.memory.top_k)
    if (!context.config.memory.enabled || !retriever || k <= 0 || !context.input.text.trim()) return
    if (context.input.stateless) return
    const loadedTurns = findLoadedTurns(context.messages)
    // A regenerated turn's earlier answer is left out of the memories as it is of the history.
    if (context.input.replaces !== undefined) loadedTurns.add(context.input.replaces)
    let hits: MemoryHit[]
    const budgetMs = context.config.memory.recall_timeout_ms
    try {
      const recall = await recallWithinBudget({
        recall: async () => {
          const search = {
            // A store that cannot leave them out is asked for enough to still fill k without them.
            k: Math.min(100, k + loadedTurns.size),
            excludeSourceTurns: [...loadedTurns],
            tokenBudget: readNumber(settings, 'token_budget', 800),
          }
          if (!context.config.memory.per_person)
            return retriever.search(context.input.text, { ...search, scope: memoryScopeOf(context.input) })
          // The speaker's memories (and their linked ids') beside the conversation's.
          const { session, character, person } = context.input
          const speaker = context.input.speaker ?? context.input.audienceSpeaker
          const scopes = await findRecallScopes({
            retriever,
            session,
            ...(character !== undefined ? { character } : {}),
            ...(speaker ? { speaker } : {}),
            ...(person !== undefined ? { person } : {}),
            clientNames: context.config.server.clients.map((client) => client.name),
          })
          return searchScopes(retriever, context.input.text, scopes, search)
        },
        budgetMs,
        ...(context.services.clock ? { timers: context.services.clock } : {}),
        logger: context.services.logger,
      })
      if (recall.status === 'timed_out') {
        context.sharedData.set(memoryRecallKey, 'timed_out')
        context.logs.push({
          processorId: 'memory-retriever',
          level: 'warn',
          message: `answering without memories: recall did not answer within ${budgetMs} ms (memory.recall_timeout_ms)`,
        })
        return
      }
      hits = recall.hits
    } catch (error) {
      // Memories enrich a reply; the reply does not wait for a memory store that is down or slow.
      if (!CharpipeError.isInstance(error) || error.code !== 'store_unavailable') throw error
      context.logs.push({
        processorId: 'memory-retriever',
        level: 'warn',
        message: `answering without memories: ${error.message}`,
      })
      return
    }
    const selected = hits
      .filter((hit) => hit.sourceTurn === undefined || !loadedTurns.has(hit.sourceTurn))
      .slice(0, k)
    context.sharedData.set(memoryHitsKey, selected)
    context.logs.push({
      processorId: 'memory-retriever',
      level: 'info',
      message: `retrieved ${selected.length} of top ${k}`,
      details: selected.map((hit) => ({
        kind: hit.kind,
        source: hit.sourceName ?? hit.kind,
        score: Number(hit.score.toFixed(4)),
        text: hit.text,
      })),
    })
  },
}
