import { describe, expect, it } from 'vitest'
import { createBlockedWordMatcher } from './create-blocked-word-matcher.js'
import { prepareBlockedWordLists } from './prepare-blocked-word-lists.js'

describe('prepareBlockedWordLists', () => {
  // Words no other test uses: a list built before (the same words in any array) needs no slice.
  it("builds every list of a config ahead: the top-level audience's, each character's and connector's", async () => {
    const config = {
      audience: { blocked_words: ['prepared-ahead top'] },
      characters: [{ name: 'a', audience: { blocked_words: ['prepared-ahead 加群'] } }, { name: 'b' }],
      connectors: { onebot: [{ name: 'qq', audience: { blocked_words: ['prepared-ahead scam'] } }] },
      character: { system_prompt: 'blocked_words', audience: { blocked_words: [] } },
    }
    let slices = 0
    const seen: unknown[] = []
    await prepareBlockedWordLists(config, async (work) => {
      slices++
      const result = work()
      if (result) seen.push(result)
      return result
    })
    expect(slices).toBeGreaterThanOrEqual(3)
    // Built in the slices: the first message's call finds them.
    expect(seen).toContain(createBlockedWordMatcher(config.audience.blocked_words))
    expect(seen).toContain(createBlockedWordMatcher(config.characters[0]!.audience!.blocked_words))
    expect(seen).toContain(createBlockedWordMatcher(config.connectors.onebot[0]!.audience.blocked_words))
  })
})
