/**
 * A process killed with SIGKILL while it writes turns leaves a database that opens, passes
 * `PRAGMA integrity_check`, and holds every turn the process reported as committed, both messages
 * intact, and no half turn.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createSqliteHistoryStore } from '../src/memory/history/sqlite-history-store.js'
import { buildDurabilityContent, durabilityScope } from './fixtures/durability/durability-turn.js'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')
const writer = join(repoRoot, 'test', 'fixtures', 'durability', 'write-turns.ts')
const folder = mkdtempSync(join(tmpdir(), 'charpipe-durability-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

interface KillResult {
  /** Highest turn index the child reported as committed before it was killed. */
  lastCommitted: number
  signal: NodeJS.Signals | null
}

/** Starts the writer and kills it with SIGKILL once it has reported `commitsBeforeKill` turns. */
function runAndKill(path: string, firstIndex: number, commitsBeforeKill: number): Promise<KillResult> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', writer, path, String(firstIndex)],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let lastCommitted = firstIndex - 1
    let reported = 0
    let buffered = ''
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        const match = /^committed (\d+)$/.exec(line)
        if (!match) continue
        lastCommitted = Number(match[1])
        // The kill lands while the child is busy in its next transaction: it never waits between turns.
        if (++reported === commitsBeforeKill) child.kill('SIGKILL')
      }
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`writer exited with ${code ?? signal} before the kill:\n${stderr}`))
      else resolve({ lastCommitted, signal })
    })
  })
}

describe('durability of the SQLite history store', () => {
  it('keeps every reported turn intact across repeated SIGKILLs, with no half turn', async () => {
    const path = join(folder, 'history.db')
    let next = 1
    let confirmed = 0
    for (const commitsBeforeKill of [40, 75, 120]) {
      const result = await runAndKill(path, next, commitsBeforeKill)
      expect(result.signal).toBe('SIGKILL')
      expect(result.lastCommitted).toBeGreaterThanOrEqual(next + commitsBeforeKill - 1)
      confirmed = result.lastCommitted

      const database = new Database(path)
      expect(database.pragma('integrity_check', { simple: true })).toBe('ok')
      database.close()

      const store = createSqliteHistoryStore({ path })
      const messages = await store.listMessages(durabilityScope)
      await store.close()
      // No half turn: messages come in question/answer pairs of the same turn, in order.
      expect(messages.length % 2).toBe(0)
      const stored = messages.length / 2
      expect(stored).toBeGreaterThanOrEqual(confirmed)
      // At most the one turn whose commit finished after the last line the child managed to print.
      expect(stored).toBeLessThanOrEqual(confirmed + 1)
      for (let index = 1; index <= stored; index++) {
        const user = messages[2 * index - 2]!
        const assistant = messages[2 * index - 1]!
        expect(user.turn).toBe(`turn-${index}`)
        expect(assistant.turn).toBe(`turn-${index}`)
        expect(user.content).toBe(buildDurabilityContent(index, 'user'))
        expect(assistant.content).toBe(buildDurabilityContent(index, 'assistant'))
        expect(assistant.emotion).toBe('平静')
      }
      next = stored + 1
    }
    expect(confirmed).toBeGreaterThanOrEqual(235)
  }, 120_000)
})
