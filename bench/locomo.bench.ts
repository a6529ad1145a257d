/**
 * LoCoMo retrieval: every conversation's turns stored as memories (one scope per conversation),
 * each question searched in its own conversation with the store's default ranking and no
 * embeddings; recall@5/10/25 of the evidence turns against the paper's DRAGON retriever.
 *
 *   node --import tsx bench/locomo.bench.ts [--datasets DIR] [--store sqlite|postgres|both]
 *     [--embeddings hashed|URL] [--embeddings-model NAME] [--split tuning|held-out|all]
 *     [--ranking JSON]
 *
 * Without `--embeddings` retrieval is keyword-only (the local default). `--embeddings hashed` adds
 * vectors from the mock model server's `/v1/embeddings` (a deterministic bag of hashed n-grams,
 * `embedHashedNgrams`: surface form only, no meaning), fused with the keyword ranking as with any
 * OpenAI-compatible endpoint; `--embeddings URL` uses a real one (its base URL including `/v1`,
 * e.g. Ollama's `http://127.0.0.1:11434/v1` with `--embeddings-model nomic-embed-text`).
 *
 * Figures are printed for the held-out half of the conversations (the headline), the tuning half
 * and all (`splitLocomo`): tune rules on the tuning half only and report the held-out half once per
 * change. `--split tuning|held-out|all` prints one of them alone.
 *
 * `--ranking '{"sittingWeight":0}'` overrides ranking options of the store (`MemoryRankingOptions`),
 * to measure a rule turned off or a value tried on the tuning half.
 *
 * `--store postgres` stores the same turns in PostgreSQL (`POSTGRES_URL`, else the local server;
 * one schema per conversation, dropped afterwards); `both` runs the two and counts the questions
 * whose top 25 came back the same, in the same order.
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
import { createPostgresMemoryStore } from '../src/memory/long-term/create-postgres-memory-store.js'
import { createSqliteMemoryStore } from '../src/memory/long-term/create-sqlite-memory-store.js'
import type { MemoryRankingOptions } from '../src/memory/long-term/memory-ranking.js'
import type { MemoryStore } from '../src/memory/types.js'
import { type MockModelServer, startMockModelServer } from '../src/testing/start-mock-model-server.js'
import { createTestSchemaName, dropSchemasUnder, testPostgresUrl } from '../test/support/local-postgres.js'
import { loadLocomo } from './locomo/load-locomo.js'
import { measureRecall, type QuestionOutcome } from './locomo/measure-recall.js'
import { splitLocomo } from './locomo/split-locomo.js'

const ks = [5, 10, 25]
const dragon: Record<number, number> = { 5: 58.8, 10: 67.5, 25: 79.9 }
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const readFlag = (name: string) => {
  const index = process.argv.indexOf(name)
  return index > 0 ? process.argv[index + 1] : undefined
}
const store = readFlag('--store') ?? 'sqlite'
if (!['sqlite', 'postgres', 'both'].includes(store)) {
  console.error(`--store must be sqlite, postgres or both, got ${JSON.stringify(store)}`)
  process.exit(2)
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

const splitFlag = readFlag('--split')
if (splitFlag !== undefined && !['tuning', 'held-out', 'all'].includes(splitFlag)) {
  console.error(`--split must be tuning, held-out or all, got ${JSON.stringify(splitFlag)}`)
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
const rankingFlag = readFlag('--ranking')
const storeOptions = {
  ...(embeddings ? { embeddings } : {}),
  ...(rankingFlag ? { ranking: JSON.parse(rankingFlag) as Partial<MemoryRankingOptions> } : {}),
}

const conversations = loadLocomo(zipPath)
const splits = splitLocomo(conversations)
const splitOf = new Map(
  Object.entries(splits).flatMap(([split, members]) => members.map((member) => [member.id, split])),
)
const shownSplits = splitFlag ? [splitFlag] : ['held-out', 'tuning', 'all']

/** Opens the store one conversation is stored in (its own file or schema). */
type OpenStore = (conversation: string, now: () => number) => Promise<MemoryStore>

interface StoreRun {
  outcomes: QuestionOutcome[]
  skipped: number
  turns: number
}

async function runLocomo(openStore: OpenStore): Promise<StoreRun> {
  const run: StoreRun = { outcomes: [], skipped: 0, turns: 0 }
  for (const conversation of conversations) {
    const lastTime = Math.max(...conversation.turns.map((turn) => turn.time))
    // Questions are asked after the last session: the clock stands a day later.
    const store = await openStore(conversation.id, () => lastTime + 86_400_000)
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
      run.outcomes.push({
        conversation: conversation.id,
        category: question.category,
        evidence: question.evidence,
        retrieved: hits.map((hit) => String(hit.metadata?.diaId)),
      })
    }
    run.skipped += conversation.skipped
    run.turns += conversation.turns.length
    await store.close()
  }
  return run
}

async function runSqlite(): Promise<StoreRun> {
  const folder = mkdtempSync(join(tmpdir(), 'locomo-bench-'))
  try {
    return await runLocomo(async (conversation, now) =>
      createSqliteMemoryStore({ path: join(folder, `${conversation}.db`), now, ...storeOptions }),
    )
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

async function runPostgres(): Promise<StoreRun> {
  // One schema per conversation, as SQLite has one file per conversation; all dropped afterwards.
  const prefix = createTestSchemaName('locomo')
  try {
    return await runLocomo((conversation, now) =>
      createPostgresMemoryStore({
        url: testPostgresUrl,
        schema: `${prefix}_${conversation.replace(/\W/g, '_').toLowerCase()}`,
        timeoutMs: 10_000,
        now,
        ...storeOptions,
      }),
    )
  } finally {
    await dropSchemasUnder(prefix)
  }
}

const runs: [string, StoreRun][] = []
if (store === 'sqlite' || store === 'both') runs.push(['sqlite', await runSqlite()])
if (store === 'postgres' || store === 'both') runs.push(['postgres', await runPostgres()])
await mockServer?.close()

for (const [name, { outcomes, skipped, turns }] of runs) {
  console.log(
    `LoCoMo through the ${name} store: ${conversations.length} conversations, ${turns} turns, ${outcomes.length} questions, ${skipped} skipped; ` +
      (embeddings ? `keyword ranking fused with embeddings (${embeddingsFlag})` : 'keyword ranking only'),
  )
  for (const split of shownSplits) {
    const chosen = outcomes.filter(
      (outcome) => split === 'all' || splitOf.get(outcome.conversation ?? '') === split,
    )
    const members = split === 'all' ? conversations : splits[split as 'tuning' | 'held-out']
    console.log(`${split}: conversations ${members.map((member) => member.id).join(', ')}`)
    printRecall(chosen)
  }
}

function printRecall(outcomes: QuestionOutcome[]): void {
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
}

if (runs.length === 2) {
  const [sqlite, postgres] = runs.map(([, run]) => run.outcomes) as [QuestionOutcome[], QuestionOutcome[]]
  const same = sqlite.filter(
    (outcome, index) => outcome.retrieved.join() === postgres[index]?.retrieved.join(),
  ).length
  console.log(
    `the same ${Math.max(...ks)} memories in the same order for ${same} of ${sqlite.length} questions`,
  )
}
