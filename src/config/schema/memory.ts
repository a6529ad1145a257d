/**
 * The `history`, `memory` and `storage` sections: what is kept between turns and where.
 */
import * as z from 'zod'
import { secret, timeoutMs } from './fields.js'

export const historySchema = z
  .strictObject({
    store: z
      .enum(['sqlite', 'redis', 'postgres', 'memory'])
      .default('sqlite')
      .describe('Where conversation history is kept.'),
    max_turns: z.int().min(0).max(1000).default(10).describe('Recent turns sent to the model.'),
    reset: z
      .strictObject({
        policy: z
          .enum(['none', 'turns', 'tokens'])
          .default('none')
          .describe('When to start a fresh history.'),
        max_turns: z
          .int()
          .min(0)
          .max(1_000_000)
          .default(0)
          .describe('policy turns: reset once a session has this many turns.'),
        max_tokens: z
          .int()
          .min(0)
          .max(100_000_000)
          .default(0)
          .describe('policy tokens: reset once the history holds this many tokens.'),
      })
      .prefault({}),
    continue_without_store: z
      .boolean()
      .default(false)
      .describe(
        'When the history store is down or past storage.timeout_ms: false ends the turn at once with store_unavailable; true answers without the history (the turn is still not stored).',
      ),
  })
  .describe('Conversation history.')

const embeddingsSchema = z.strictObject({
  provider: z.string().default('openai').describe('Registry name or any name with base_url.'),
  model: z.string().default('text-embedding-3-small').describe('Embedding model id.'),
  base_url: z.string().default('').describe("Embeddings API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
})

export const memorySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Store turns as long-term memories and retrieve them.'),
    store: z
      .enum(['sqlite', 'postgres'])
      .default('sqlite')
      .describe(
        'Where long-term memories, their history of changes and the knowledge base are kept: sqlite (storage.sqlite_path) or postgres (storage.postgres_url, shared by several servers). Search ranks alike in both.',
      ),
    top_k: z.int().min(0).max(100).default(3).describe('Memories placed in the system prompt.'),
    min_score: z
      .number()
      .min(0)
      .max(1)
      .default(0.01)
      .describe(
        'Lowest relevance (0–1, the share of the best score the query could reach) a memory needs to be retrieved; 0: every match.',
      ),
    recall_timeout_ms: timeoutMs()
      .default(150)
      .describe(
        'Longest wait for recall (the long-term memory search for a turn, embedding call included) before the model is asked; past it the turn goes on without memories and its llm_done carries memory: timed_out (counted in charpipe_memory_recall_timeouts_total). The late answer is dropped.',
      ),
    per_person: z
      .boolean()
      .default(false)
      .describe(
        "Keep what a speaker says in that person's own memory (person ids such as onebot:<name>:<user_id>, bilibili:<name>:<uid>, speaker:<id>, client:<client name>:<id> for a named client's speaker or /v1 user, session:<session>) and recall it wherever they speak to the character, together with the conversation's memories and those of every id linked to them (/api/people).",
      ),
    extract: z
      .boolean()
      .default(false)
      .describe('Let the model extract facts from turns instead of storing raw turns.'),
    extract_timeout_ms: timeoutMs()
      .default(20_000)
      .describe('Longest wait for one fact extraction; then the turn adds no facts.'),
    embeddings: embeddingsSchema
      .nullable()
      .default(null)
      .describe('An OpenAI-compatible embeddings endpoint; null: keyword retrieval only.'),
    max_knowledge_chars: z
      .int()
      .min(1)
      .default(10_000_000)
      .describe(
        'Longest knowledge document (POST /api/kb, charpipe kb add), in characters; a longer one is refused naming this limit.',
      ),
    index_max_mb: z
      .int()
      .min(1)
      .max(65_536)
      .default(64)
      .describe(
        'Memory the in-process keyword index may hold, in MiB; past it the scopes searched least recently are dropped and rebuilt from the database when next searched.',
      ),
  })
  .describe('Long-term memory.')

export const storageSchema = z
  .strictObject({
    sqlite_path: z.string().min(1).default('./data/charpipe.db').describe('SQLite database file.'),
    redis_url: secret('Redis URL (history.store: redis; cluster.enabled).'),
    postgres_url: secret('PostgreSQL URL (history.store: postgres; memory.store: postgres).'),
    timeout_ms: timeoutMs()
      .default(2500)
      .describe(
        "Longest wait for one history or memory store call, and for one command of the cluster's Redis; past it (or when the store is down) the call fails with store_unavailable. A turn write that misses it is read back before the client is told. The time a SQLite memory call waits in the process's own queue of memory work (behind other sessions' writes) is not counted.",
      ),
  })
  .describe('Storage back ends.')
