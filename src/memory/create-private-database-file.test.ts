/**
 * The SQLite files a server creates (history and memory share one database) are readable by the
 * server's own user only, and the database still works.
 */
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'
import { createCharpipe } from '../engine/create-charpipe.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'private-database-'))
})
afterAll(() => rm(folder, { recursive: true, force: true }))

const modeOf = (path: string) => statSync(path).mode & 0o777

describe('SQLite database files', () => {
  it('are created 0600 with their -wal and -shm files, and hold the conversation', async () => {
    const path = join(folder, 'data', 'charpipe.db')
    const { config } = parseConfig({ storage: { sqlite_path: path }, memory: { enabled: true } })
    const charpipe = await createCharpipe(config)
    try {
      doneOf(await collectEvents(charpipe.generate({ text: '记住我喜欢猫' })))
      expect(
        (await charpipe.sessions.history({ session: 'default' })).map((message) => message.role),
      ).toEqual(['user', 'assistant'])
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file)).toBe(true)
        expect(modeOf(file).toString(8)).toBe('600')
      }
    } finally {
      await charpipe.close()
    }
  })

  it('leave the mode of an existing database file as its owner set it', async () => {
    const path = join(folder, 'shared.db')
    writeFileSync(path, '')
    chmodSync(path, 0o640)
    const { config } = parseConfig({ storage: { sqlite_path: path }, memory: { enabled: false } })
    const charpipe = await createCharpipe(config)
    try {
      doneOf(await collectEvents(charpipe.generate({ text: '你好' })))
      expect(modeOf(path).toString(8)).toBe('640')
    } finally {
      await charpipe.close()
    }
  })
})
