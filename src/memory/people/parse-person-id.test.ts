import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createSessionOwners, namedClientKey } from '../../server/create-session-owners.js'
import { formatPersonId, maxPersonIdLength, type PersonId, parsePersonId } from './parse-person-id.js'
import { personOfTurn } from './person-of-turn.js'

const name = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/)
// Ids may hold `:` and any printable character, as platform and session ids do; not the control
// characters (C0, DEL, C1) nor the line and paragraph separators, which a person id refuses.
const id = fc
  .string({ minLength: 1, maxLength: 60, unit: 'grapheme' })
  .filter((text) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text))

const personId: fc.Arbitrary<PersonId> = fc.oneof(
  fc.record({ source: fc.constantFrom('onebot', 'twitch', 'bilibili', 'client' as const), name, id }),
  fc.record({ source: fc.constantFrom('speaker', 'session' as const), id }),
)

describe('parsePersonId', () => {
  it('reads back every id it formats, whatever the id holds', () => {
    fc.assert(
      fc.property(personId, (person) => {
        expect(parsePersonId(formatPersonId(person))).toEqual({ ok: true, person })
      }),
    )
  })

  it('answers any text with a person or a problem, never a throw, and only accepts what it formats again', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const parsed = parsePersonId(text)
        if (parsed.ok) expect(formatPersonId(parsed.person)).toBe(text)
        else expect(parsed.problem).toMatch(/^the person id/)
      }),
    )
  })

  it('refuses an id that holds a control character or a line separator, which it could format', () => {
    for (const character of ['\u0000', '\u001f', '\u007f', '\u0085', '\u009f', '\u2028', '\u2029']) {
      const text = formatPersonId({ source: 'onebot', name: 'qq', id: `a${character}b` })
      expect(parsePersonId(text)).toEqual({ ok: false, problem: 'the person id holds a control character' })
      expect(
        personOfTurn({ session: 'onebot:qq:group:1', speaker: { id: `a${character}b` } }),
      ).toBeUndefined()
    }
  })

  it('names what is wrong', () => {
    expect(parsePersonId('')).toEqual({ ok: false, problem: 'the person id is empty' })
    expect(parsePersonId('qq:42')).toMatchObject({ ok: false, problem: expect.stringContaining('onebot:') })
    expect(parsePersonId('onebot:QQ:42')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('name'),
    })
    expect(parsePersonId('onebot:qq')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('names no user'),
    })
    expect(parsePersonId('speaker:')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('names no'),
    })
    for (const breaking of ['\n', '\u0085', '\u009b', '\u2028', '\u2029'])
      expect(parsePersonId(`speaker:a${breaking}b`)).toMatchObject({
        ok: false,
        problem: expect.stringContaining('control'),
      })
    expect(parsePersonId(`speaker:${'x'.repeat(maxPersonIdLength)}`)).toMatchObject({ ok: false })
    expect(parsePersonId('bilibili:room:hash:2904574201')).toEqual({
      ok: true,
      person: { source: 'bilibili', name: 'room', id: 'hash:2904574201' },
    })
  })
})

describe('personOfTurn', () => {
  it("names a connector's speaker after the connector, any other speaker as a speaker, and nobody by the session", () => {
    expect(personOfTurn({ session: 'onebot:qq:group:123', speaker: { id: '42' } })).toBe('onebot:qq:42')
    expect(personOfTurn({ session: 'onebot:qq:private:42', speaker: { id: '42' } })).toBe('onebot:qq:42')
    expect(personOfTurn({ session: 'bilibili:room:21452505', speaker: { id: '20' } })).toBe(
      'bilibili:room:20',
    )
    expect(personOfTurn({ session: 'twitch:tv:channel', speaker: { id: 'viewer' } })).toBe('twitch:tv:viewer')
    expect(personOfTurn({ session: 'living-room', speaker: { id: 'alice' } })).toBe('speaker:alice')
    expect(personOfTurn({ session: 'living-room' })).toBe('session:living-room')
    expect(personOfTurn({ session: 'x', speaker: { id: 'a\u0000b' } })).toBeUndefined()
  })

  it("names a speaker in a named client's sessions after the client, as the server namespaces them", () => {
    const owners = createSessionOwners()
    const resolved = owners.resolve('diary', namedClientKey('phone-app'))
    if (!resolved.ok) throw new Error(resolved.message)
    const clientNames = ['desk', 'phone-app']
    expect(personOfTurn({ session: resolved.session, speaker: { id: 'ann' }, clientNames })).toBe(
      'client:phone-app:ann',
    )
    expect(personOfTurn({ session: resolved.session, clientNames })).toBe(`session:${resolved.session}`)
    // A key of no named client: its speakers are plain speakers.
    const keyed = owners.resolve('diary', 'some-random-client-key')
    if (!keyed.ok) throw new Error(keyed.message)
    expect(personOfTurn({ session: keyed.session, speaker: { id: 'ann' }, clientNames })).toBe('speaker:ann')
  })

  it('takes the person the caller names over the session and the speaker, when it is a person id', () => {
    const onebot = { session: 'onebot:qq:group:123', speaker: { id: '42' } }
    expect(personOfTurn({ ...onebot, person: 'client:desk:ann' })).toBe('client:desk:ann')
    expect(personOfTurn({ session: 'living-room', person: 'client:desk:ann' })).toBe('client:desk:ann')
    expect(personOfTurn({ session: 'living-room', person: 'desk:ann' })).toBeUndefined()
  })

  it('gives every turn a valid person id or none', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 80 }),
        fc.option(fc.string({ maxLength: 40 })),
        (session, speaker) => {
          const person = personOfTurn({ session, ...(speaker !== null ? { speaker: { id: speaker } } : {}) })
          if (person !== undefined) expect(parsePersonId(person).ok).toBe(true)
        },
      ),
    )
  })
})
