import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../testing/create-turn-harness.js'
import { createCharpipe } from './create-charpipe.js'

const folder = mkdtempSync(join(tmpdir(), 'charpipe-records-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('records.keep / records.read', () => {
  it('keeps a record in the SQLite history, read back by a new instance, in no session list', async () => {
    const config = makeConfig({
      history: { store: 'sqlite' },
      storage: { sqlite_path: join(folder, 'records.db') },
    })
    const first = await createCharpipe(config)
    await first.records.keep({ kind: 'responses', id: 'resp_1', value: '{"a":1}' })
    // Written once: a second write of the id changes nothing.
    await first.records.keep({ kind: 'responses', id: 'resp_1', value: '{"a":2}' })
    await first.close()

    const second = await createCharpipe(config)
    try {
      expect(await second.records.read({ kind: 'responses', id: 'resp_1' })).toBe('{"a":1}')
      expect(await second.records.read({ kind: 'responses', id: 'resp_2' })).toBeUndefined()
      expect(await second.sessions.history({ session: 'responses' })).toEqual([])
    } finally {
      await second.close()
    }
  })

  it('refuses a kind that is not a plain name', async () => {
    const charpipe = await createCharpipe(makeConfig())
    try {
      await expect(charpipe.records.keep({ kind: '../x', id: 'a', value: 'b' })).rejects.toThrow(
        /record kind/,
      )
    } finally {
      await charpipe.close()
    }
  })
})
