import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeInteractWord } from '../../src/connectors/bilibili/decode-interact-word.js'
import { interactV2Command, protobufBytes, protobufVarint } from './__fixtures__/bilibili-commands.js'

describe('INTERACT_WORD_V2 protobuf', () => {
  it('reads the uid, the name and the kind from a recorded message’s first fields', () => {
    // The opening fields of a recorded entry (uid, name, identities, msg_type), as a public
    // write-up of the danmaku protocol prints its `pb`, cut at a field boundary.
    expect(decodeInteractWord('CLq62owBEgzmpaDmnKhIb3RhcnUiAgMBKAE=')).toEqual({
      uid: 295_083_322,
      name: '楠木Hotaru',
      msgType: 1,
    })
  })

  it('skips fields it does not read: nested messages, packed lists, fixed-width numbers', () => {
    const pb = interactV2Command(2, 2 ** 40 + 7, '关注的人').data.pb
    expect(decodeInteractWord(pb)).toEqual({ uid: 2 ** 40 + 7, name: '关注的人', msgType: 2 })
    const fixed = Buffer.concat([
      Buffer.from([(10 << 3) | 1, 1, 2, 3, 4, 5, 6, 7, 8]),
      Buffer.from([(11 << 3) | 5, 1, 2, 3, 4]),
      protobufVarint(5, 1),
      protobufBytes(2, Buffer.from('x')),
    ])
    expect(decodeInteractWord(fixed.toString('base64'))).toEqual({ uid: 0, name: 'x', msgType: 1 })
  })

  it('names a message cut short or of a wire type it does not read', () => {
    const whole = Buffer.from(interactV2Command(1).data.pb, 'base64')
    expect(() => decodeInteractWord(whole.subarray(0, 5).toString('base64'))).toThrow(
      /INTERACT_WORD_V2: a field of \d+ bytes where \d+ remain/,
    )
    expect(() => decodeInteractWord(Buffer.from([0x08, 0x80]).toString('base64'))).toThrow(
      /a number runs past the end/,
    )
    expect(() => decodeInteractWord(Buffer.from([(3 << 3) | 3]).toString('base64'))).toThrow(
      /field 3 has wire type 3/,
    )
  })

  it('reads back any uid, name and kind it is given, and names any other bytes as its own error', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.string({ maxLength: 40 }),
        fc.integer({ min: 0, max: 10 }),
        (uid, name, msgType) => {
          const pb = interactV2Command(msgType, uid, name).data.pb
          expect(decodeInteractWord(pb)).toEqual({ uid, name, msgType })
        },
      ),
    )
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeInteractWord(Buffer.from(bytes).toString('base64'))
        } catch (error) {
          expect((error as Error).message).toMatch(/^INTERACT_WORD_V2: /)
        }
      }),
    )
  })
})
