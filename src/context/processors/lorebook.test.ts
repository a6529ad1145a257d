import { describe, expect, it } from 'vitest'
import { type CharpipeConfigInput, type LorebookEntryConfig, lorebookSchema } from '../../config/schema.js'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../../testing/create-fake-build-options.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import { selectLorebookEntries } from '../lorebook/select-lorebook-entries.js'

type EntryInput = Partial<LorebookEntryConfig> & { content: string }
type LorebookInput = {
  entries: EntryInput[]
  scan_depth?: number
  token_budget?: number
  recursive?: boolean
}

const separate: CharpipeConfigInput['pipeline'] = {
  processors: {
    'merge-system-messages': { enabled: false },
    'merge-consecutive-roles': { enabled: false },
    'session-loader': { replay_format: false },
  },
}

async function build(lorebook: LorebookInput, text: string, options: { turns?: number } = {}) {
  const history = createInMemoryHistoryStore()
  if (options.turns) await storeTurns(history, options.turns)
  const result = await createContextPipeline().build(
    createFakeBuildOptions({
      history,
      input: { text },
      config: { character: { persona: '人设', lorebook }, pipeline: separate },
    }),
  )
  return {
    lines: result.messages.map((message) => `${message.source}:${messageText(message)}`),
    lore: result.messages.filter((message) => message.source === 'lorebook').map(messageText),
    logs: result.logs.filter((log) => log.processorId === 'lorebook'),
  }
}

describe('lorebook', () => {
  it('injects an entry only when one of its keys appears, case-insensitively by default', async () => {
    const book = { entries: [{ keys: ['Dragon', '巨龙'], content: 'Dragons sleep in the north.' }] }
    expect((await build(book, 'tell me about the weather')).lore).toEqual([])
    expect((await build(book, 'is there a DRAGON here?')).lore).toEqual(['Dragons sleep in the north.'])
    expect((await build(book, '山里有巨龙吗')).lore).toEqual(['Dragons sleep in the north.'])
  })

  it('matches case-sensitive keys with case, and /regex/flags keys on the linear-time engine', async () => {
    const book = {
      entries: [
        { keys: ['Rose'], case_sensitive: true, content: 'Rose is a person.' },
        { keys: ['/\\bsw(or|ea)ds?\\b/i'], content: 'Swords are forbidden.' },
      ],
    }
    expect((await build(book, 'a rose and a SWORD')).lore).toEqual(['Swords are forbidden.'])
    expect((await build(book, 'Rose said swordsmith')).lore).toEqual(['Rose is a person.'])
  })

  it('needs a secondary key for a selective entry, and always injects a constant one', async () => {
    const book = {
      entries: [
        { keys: ['castle'], secondary_keys: ['night', 'dark'], selective: true, content: 'Ghosts at night.' },
        { keys: [], constant: true, content: 'The world is round.' },
      ],
    }
    expect((await build(book, 'the castle at noon')).lore).toEqual(['The world is round.'])
    expect((await build(book, 'the castle in the dark')).lore).toEqual([
      'Ghosts at night.',
      'The world is round.',
    ])
  })

  it('scans only the newest scan_depth messages, the input included', async () => {
    // Stored history: 问题0 回答0 问题1 回答1; the input is the newest message.
    const book = {
      scan_depth: 2,
      entries: [
        { keys: ['问题0'], content: 'old' },
        { keys: ['回答1'], content: 'new' },
      ],
    }
    expect((await build(book, '嗯', { turns: 2 })).lore).toEqual(['new'])
    expect((await build({ ...book, scan_depth: 5 }, '嗯', { turns: 2 })).lore).toEqual(['old', 'new'])
    expect((await build({ ...book, scan_depth: 0 }, '问题0 回答1', { turns: 2 })).lore).toEqual([])
  })

  it('keeps the entries with the highest insertion_order within the token budget, placed by order', async () => {
    const long = 'lore '.repeat(60)
    const book = {
      token_budget: 20,
      entries: [
        { keys: ['x'], insertion_order: 1, content: `low ${long}` },
        { keys: ['x'], insertion_order: 50, content: 'middle' },
        { keys: ['x'], insertion_order: 90, content: 'high' },
      ],
    }
    const result = await build(book, 'x')
    expect(result.lore).toEqual(['middle', 'high'])
    expect(result.logs.map((log) => log.message)).toContain(
      '1 triggered entries left out: past the token budget of 20',
    )
  })

  it('places entries before or after the persona, or at their depth in the history', async () => {
    const book = {
      entries: [
        { keys: ['k'], position: 'before_char' as const, content: 'before {{char}}' },
        { keys: ['k'], position: 'after_char' as const, content: 'after' },
        { keys: ['k'], position: 'depth' as const, depth: 1, role: 'user' as const, content: 'deep' },
      ],
    }
    const { lines } = await build(book, 'k', { turns: 1 })
    expect(lines[0]).toBe('lorebook:before 小助手')
    expect(lines[1]).toMatch(/^system:你是小助手/)
    expect(lines.slice(2)).toEqual([
      'lorebook:after',
      'history:问题0',
      'lorebook:deep',
      'history:回答0',
      'input:k',
    ])
  })

  it('lets injected entries trigger others when recursive, a bounded number of rounds', async () => {
    const chain = (recursive: boolean) => ({
      recursive,
      entries: [
        { keys: ['a'], content: 'mentions bee', insertion_order: 1 },
        { keys: ['bee'], content: 'mentions cat', insertion_order: 2 },
        { keys: ['cat'], content: 'end', insertion_order: 3 },
      ],
    })
    expect((await build(chain(false), 'a')).lore).toEqual(['mentions bee'])
    expect((await build(chain(true), 'a')).lore).toEqual(['mentions bee', 'mentions cat', 'end'])
    const options = createFakeBuildOptions({
      input: { text: 'a' },
      config: {
        character: { lorebook: chain(true) },
        pipeline: { processors: { ...separate.processors, lorebook: { max_recursion: 1 } } },
      },
    })
    const { messages } = await createContextPipeline().build(options)
    expect(messages.filter((message) => message.source === 'lorebook').map(messageText)).toEqual([
      'mentions bee',
      'mentions cat',
    ])
  })

  it('leaves disabled entries out, and a config with a key RE2 cannot run is refused naming it', async () => {
    expect((await build({ entries: [{ keys: ['k'], enabled: false, content: 'off' }] }, 'k')).lore).toEqual(
      [],
    )
    const book = {
      entries: [
        { keys: ['k'], content: 'plain' },
        { keys: ['/(?=k)k/'], content: 'lookahead' },
      ],
    }
    await expect(build(book, 'k')).rejects.toThrow(
      /character\.lorebook\.entries\.1\.keys\.0: lorebook entry 1, key 0: lookahead .* not supported/,
    )
  })

  it('reports a key RE2 cannot run when the lorebook did not pass the config check', () => {
    const lorebook = lorebookSchema.parse({
      entries: [
        { keys: ['k'], content: 'plain' },
        { keys: ['/(?=k)k/'], content: 'lookahead' },
      ],
    })
    const result = selectLorebookEntries({
      lorebook,
      text: 'k',
      countTokens: estimateTokens,
      maxRecursion: 0,
    })
    expect(result.entries.map((entry) => entry.content)).toEqual(['plain'])
    expect(result.problems).toEqual([
      expect.stringMatching(/^lorebook entry 1, key 0: lookahead .* not supported/),
    ])
  })

  it("says in the logs when a lorebook within the bounds spends the turn's pattern budget", async () => {
    const entries = Array.from({ length: 50 }, (_, index) => ({
      keys: ['/(?:[a-z]?){450}[0-9]/'],
      content: `e${index}`,
    }))
    const result = await build({ entries, token_budget: 100_000 }, `${'z'.repeat(1_000)} a1`)
    expect(result.lore.length).toBeGreaterThan(0)
    expect(result.lore.length).toBeLessThan(50)
    expect(result.logs.map((log) => log.message)).toContainEqual(
      `the pattern keys' scan stopped at its budget of 1000000 units (instructions × characters): ${50 - result.lore.length} pattern key runs left out, the last in entry order`,
    )
  })
})
