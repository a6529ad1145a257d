import { describe, expect, it } from 'vitest'
import { signWbiQuery, wbiKeyOfUrl, wbiMixinKey } from '../../src/connectors/bilibili/sign-wbi.js'

// The worked example of Bilibili's WBI signature as the community API notes (bilibili-API-collect,
// docs/misc/sign/wbi.md) publish it: these keys, these parameters at this time give this w_rid.
const keys = { imgKey: '7cd084941338484aae1ad9425b84077c', subKey: '4932caff0ff746eab6f01bf08b70ac45' }

describe('WBI signature', () => {
  it('gives the published example’s mixin key and w_rid', () => {
    expect(wbiMixinKey(keys)).toBe('ea1db124af3c7062474693fa704f4ff8')
    expect(signWbiQuery({ foo: '114', bar: '514', zab: 1919810 }, wbiMixinKey(keys), 1702204169)).toBe(
      'bar=514&foo=114&wts=1702204169&zab=1919810&w_rid=8f6f2b5b3d485fe1886cec6a0be8c5d4',
    )
  })

  it("takes !'()* out of values and encodes the rest as the web client does", () => {
    const query = signWbiQuery({ keyword: "(hi)! it's *me* 你好" }, wbiMixinKey(keys), 1)
    expect(query.startsWith('keyword=hi%20its%20me%20%E4%BD%A0%E5%A5%BD&wts=1&w_rid=')).toBe(true)
    // Only the characters taken out change nothing: the same signature.
    expect(signWbiQuery({ keyword: 'hi its me 你好' }, wbiMixinKey(keys), 1)).toBe(query)
  })

  it('reads a key from a nav image address and refuses keys too short to shuffle', () => {
    expect(wbiKeyOfUrl(`https://i0.hdslb.com/bfs/wbi/${keys.imgKey}.png`)).toBe(keys.imgKey)
    expect(() => wbiMixinKey({ imgKey: 'abc', subKey: 'def' })).toThrow(/6 characters together, 64 expected/)
  })
})
