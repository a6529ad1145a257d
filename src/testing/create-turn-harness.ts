/**
 * One turn test harness: a real engine (`createCharpipe`) on a config made for tests (history in
 * memory, long-term memory off), a scripted model, a manual clock for turn timing, preflight expiry
 * and the audience, and `turn(input)` giving the turn's events. Stand-in parts (a plain-text parser,
 * a small pipeline: `createFakeEngineParts`) replace the real stages only when a test asks for them.
 *
 * @example
 * const harness = await createTurnHarness({ steps: [{ chunks: ['你好。'] }] })
 * const events = await harness.turn({ text: 'hi', session: 's' })
 * await harness.close()
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../characters/load-config.js'
import type { CharpipeConfig, CharpipeConfigInput } from '../config/schema.js'
import { createCharpipe } from '../engine/create-charpipe.js'
import type { EngineParts } from '../engine/engine-parts.js'
import type { Charpipe, GenerateInput } from '../engine/types.js'
import type { ChatProvider } from '../providers/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createManualClock, type ManualClock } from './create-manual-clock.js'
import { createScriptedProvider, type ScriptedStep } from './create-scripted-provider.js'

/** A config for a turn test: history in memory and long-term memory off, unless `overrides` say. */
export function makeConfig(overrides: CharpipeConfigInput = {}): CharpipeConfig {
  return parseConfig({
    history: { store: 'memory' },
    memory: { enabled: false },
    characters_dir: readEmptyCharactersDir(),
    ...overrides,
  }).config
}

let emptyCharactersDir: string | undefined

/** An empty characters folder, made once per process: a test's config never reads the checkout's `./data`. */
function readEmptyCharactersDir(): string {
  if (emptyCharactersDir) return emptyCharactersDir
  const made = mkdtempSync(join(tmpdir(), 'charpipe-characters-'))
  process.once('exit', () => rmSync(made, { recursive: true, force: true }))
  emptyCharactersDir = made
  return made
}

export interface TurnHarnessOptions {
  /** Fields of the config over the test defaults (`makeConfig`). */
  config?: CharpipeConfigInput
  /** The model's answers, one step per request (`createScriptedProvider`); ignored with `provider`. */
  steps?: ScriptedStep[]
  provider?: ChatProvider
  /** @default a manual clock starting at 2026-01-01T00:00:00Z */
  clock?: ManualClock
  /** Stages to replace (e.g. `createFakeParts()`); the real ones otherwise. */
  parts?: Partial<EngineParts>
}

export interface TurnHarness {
  readonly charpipe: Charpipe
  readonly clock: ManualClock
  readonly provider: ChatProvider
  /** Runs one turn and gives every event it sent, `llm_done` last. */
  turn(input: GenerateInput): Promise<CharpipeEvent[]>
  close(): Promise<void>
}

export async function createTurnHarness(options: TurnHarnessOptions = {}): Promise<TurnHarness> {
  const clock = options.clock ?? createManualClock()
  const provider = options.provider ?? createScriptedProvider(options.steps ?? [{ chunks: ['好的。'] }])
  const charpipe = await createCharpipe(makeConfig(options.config), {
    clock,
    provider,
    ...(options.parts ? { parts: options.parts } : {}),
  })
  return {
    charpipe,
    clock,
    provider,
    async turn(input) {
      const events: CharpipeEvent[] = []
      await charpipe.run(input, { onEvent: (event) => events.push(event) })
      return events
    },
    close: () => charpipe.close(),
  }
}
