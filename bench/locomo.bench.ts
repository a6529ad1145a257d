/**
 * LoCoMo retrieval: every conversation's turns stored as memories (one scope per conversation),
 * each question searched in its own conversation with the store's default ranking; recall@5/10/25
 * of the evidence turns against the paper's DRAGON retriever.
 *
 *   node --import tsx bench/locomo.bench.ts [--datasets DIR] [--embeddings hashed|URL] [--embeddings-model NAME]
 *
 * Without `--embeddings` retrieval is keyword-only (the local default). `--embeddings hashed` adds
 * vectors from the mock model server's `/v1/embeddings` (a deterministic bag of hashed n-grams,
 * `embedHashedNgrams`: surface form only, no meaning), fused with the keyword ranking as with any
 * OpenAI-compatible endpoint; `--embeddings URL` uses a real one (its base URL including `/v1`,
 * e.g. Ollama's `http://127.0.0.1:11434/v1` with `--embeddings-model nomic-embed-text`).
 *
 * The dataset is not kept in the repository: the folder comes from `--datasets`, else
 * `CHARPIPE_DATASETS`, else `../shared/datasets` beside the checkout, and must hold
 * `locomo/locomo10.zip`: the file `data/locomo10.zip` of the public snap-research/locomo repository
 * (CC BY-NC 4.0; evaluation use only).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  createOpenAIEmbeddings,
  type EmbeddingsClient,
} from '../src/memory/long-term/create-openai-embeddings.js'
import { createSqliteMemoryStore } from '../src/memory/long-term/create-sqlite-memory-store.js'
import { type MockModelServer, startMockModelServer } from '../src/testing/start-mock-model-server.js'
import { loadLocomo } from './locomo/load-locomo.js'
import { measureRecall, type QuestionOutcome } from './locomo/measure-recall.js'

const ks = [5, 10, 25]
const dragon: Record<number, number> = { 5: 58.8, 10: 67.5, 25: 79.9 }
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')
function readFlag(name: string): string | undefined {
  const index = process.argv.indexOf(name)
  return index > 0 ? process.argv[index + 1] : undefined
}
const datasetsDir =
  readFlag('--datasets') ?? process.env.CHARPIPE_DATASETS ?? join(repoRoot, '..', 'shared', 'datasets')
const zipPath = join(datasetsDir, 'locomo', 'locomo10.zip')
if (!existsSync(zipPath)) {
  console.error(
    `LoCoMo not found at ${zipPath}.\n` +
      'Get data/locomo10.zip from the public snap-research/locomo repository, put it at\n' +
      'DIR/locomo/locomo10.zip and pass DIR with --datasets DIR or CHARPIPE_DATASETS=DIR.',
  )
  process.exit(2)
}

const embeddingsFlag = readFlag('--embeddings')
let mockServer: MockModelServer | undefined
let embeddings: EmbeddingsClient | undefined
if (embeddingsFlag === 'hashed') {
  mockServer = await startMockModelServer()
  embeddings = createOpenAIEmbeddings({ baseUrl: `${mockServer.url}/v1`, model: 'hashed-ngrams' })
} else if (embeddingsFlag) {
  embeddings = createOpenAIEmbeddings({
    baseUrl: embeddingsFlag,
    model: readFlag('--embeddings-model') ?? 'nomic-embed-text',
  })
}

const conversations = loadLocomo(zipPath)
const folder = mkdtempSync(join(tmpdir(), 'locomo-bench-'))
const outcomes: QuestionOutcome[] = []
let skipped = 0
let turns = 0
try {
  for (const conversation of conversations) {
    const lastTime = Math.max(...conversation.turns.map((turn) => turn.time))
    // Questions are asked after the last session: the clock stands a day later.
    const store = createSqliteMemoryStore({
      path: join(folder, `${conversation.id}.db`),
      now: () => lastTime + 86_400_000,
      ...(embeddings ? { embeddings } : {}),
    })
    for (const turn of conversation.turns) {
      await store.add({
        scope: conversation.id,
        text: turn.text,
        speaker: turn.speaker,
        time: turn.time,
        metadata: { diaId: turn.diaId },
      })
    }
    for (const question of conversation.questions) {
      const hits = await store.search(question.question, { scope: conversation.id, k: Math.max(...ks) })
      outcomes.push({
        category: question.category,
        evidence: question.evidence,
        retrieved: hits.map((hit) => String(hit.metadata?.diaId)),
      })
    }
    skipped += conversation.skipped
    turns += conversation.turns.length
    await store.close()
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
  await mockServer?.close()
}

console.log(
  `LoCoMo: ${conversations.length} conversations, ${turns} turns, ${outcomes.length} questions, ${skipped} skipped; ` +
    (embeddings ? `keyword ranking fused with embeddings (${embeddingsFlag})` : 'keyword ranking only'),
)
const rows = measureRecall(outcomes, ks)
console.table(
  Object.fromEntries([
    ...rows.map((row) => [
      row.label,
      {
        questions: row.questions,
        ...Object.fromEntries(ks.map((k) => [`R@${k}`, row.recall[k]?.toFixed(2)])),
      },
    ]),
    [
      'DRAGON (paper)',
      { questions: '', ...Object.fromEntries(ks.map((k) => [`R@${k}`, dragon[k]?.toFixed(1)])) },
    ],
  ]),
)
