import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSqliteMemoryStore } from '../../src/memory/long-term/create-sqlite-memory-store.js'
import { cliArguments } from '../support/cli-command.js'

const root = join(import.meta.dirname, '..', '..')
let folder: string
let configPath: string
let databasePath: string

function runKb(args: string[]) {
  return spawnSync(process.execPath, cliArguments(['kb', ...args]), {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CHARPIPE_LOG_LEVEL: 'warn' },
  })
}

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'charpipe-kb-'))
  databasePath = join(folder, 'data', 'charpipe.db')
  configPath = join(folder, 'config.yaml')
  writeFileSync(configPath, `storage:\n  sqlite_path: ${JSON.stringify(databasePath)}\n`)
  writeFileSync(
    join(folder, 'faq.md'),
    '# FAQ\n\n## Shipping\n\nParcels ship within two days.\n\n## Returns\n\nThirty days.',
  )
  writeFileSync(join(folder, 'notes.txt'), '营业时间：早上九点到晚上六点。')
})

afterAll(() => {
  rmSync(folder, { recursive: true, force: true })
})

describe('charpipe kb', () => {
  it('adds files, lists them, finds their chunks, and removes one', async () => {
    const added = runKb(['add', join(folder, 'faq.md'), join(folder, 'notes.txt'), '--config', configPath])
    expect(added.stderr).toBe('')
    expect(added.status).toBe(0)
    expect(added.stdout).toMatch(/added kb_\S+ {2}\S*faq\.md {2}\(2 chunks\)/)
    expect(added.stdout).toMatch(/added kb_\S+ {2}\S*notes\.txt {2}\(1 chunks\)/)

    const listed = runKb(['list', '--config', configPath])
    expect(listed.status).toBe(0)
    expect(listed.stdout).toContain('faq.md')
    expect(listed.stdout).toContain('notes.txt')

    const store = createSqliteMemoryStore({ path: databasePath })
    const hits = await store.search('营业时间', { scope: 'anyone', k: 3 })
    expect(hits[0]).toMatchObject({ kind: 'knowledge', sourceName: join(folder, 'notes.txt') })
    await store.close()

    const id = /(kb_\S+) {2}\S*faq\.md/.exec(added.stdout)?.[1] as string
    const removed = runKb(['remove', id, '--config', configPath])
    expect(removed.status).toBe(0)
    expect(runKb(['list', '--config', configPath]).stdout).not.toContain('faq.md')
    const again = runKb(['remove', id, '--config', configPath])
    expect(again.status).toBe(1)
    expect(again.stderr).toContain(`no document ${id}`)
  })

  it('explains bad usage and unreadable files', () => {
    const noAction = runKb(['--config', configPath])
    expect(noAction.status).toBe(2)
    expect(noAction.stderr).toContain('expected add, list or remove')
    const missing = runKb(['add', join(folder, 'nope.md'), '--config', configPath])
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain(`cannot read ${join(folder, 'nope.md')}`)
  })

  it('skips a file over memory.max_knowledge_chars, naming the limit, and adds the others', () => {
    const limited = join(folder, 'limited.yaml')
    writeFileSync(
      limited,
      `storage:\n  sqlite_path: ${JSON.stringify(join(folder, 'limited.db'))}\nmemory:\n  max_knowledge_chars: 100\n`,
    )
    writeFileSync(join(folder, 'long.md'), 'word '.repeat(40))
    const added = runKb(['add', join(folder, 'long.md'), join(folder, 'notes.txt'), '--config', limited])
    expect(added.status).toBe(1)
    expect(added.stderr).toContain('has 200 characters, more than memory.max_knowledge_chars (100)')
    expect(added.stdout).toMatch(/added kb_\S+ {2}\S*notes\.txt/)
  })
})
