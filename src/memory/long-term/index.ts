export {
  type ChunkKnowledgeTextOptions,
  chunkKnowledgeText,
  type KnowledgeChunk,
} from './chunk-knowledge-text.js'
export {
  type CreateOpenAIEmbeddingsOptions,
  createOpenAIEmbeddings,
  type EmbeddingsClient,
} from './create-openai-embeddings.js'
export { type CreateSqliteMemoryStoreOptions, createSqliteMemoryStore } from './create-sqlite-memory-store.js'
export { defaultMemoryRanking, type MemoryRankingOptions } from './memory-ranking.js'
export {
  type ExtractedFactDecision,
  type FactExtractOptions,
  type FactExtractor,
  type RememberTurnOptions,
  type RememberTurnResult,
  rememberTurn,
} from './remember-turn.js'
export { segmentText } from './segment-text.js'
