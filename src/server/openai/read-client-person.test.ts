import { describe, expect, it } from 'vitest'
import { parsePersonId } from '../../memory/people/parse-person-id.js'
import { readClientPerson } from './read-client-person.js'

describe('readClientPerson', () => {
  it("names a named client's end user after the client, from user, else safety_identifier", () => {
    expect(readClientPerson({ clientName: 'airi', user: 'ann' })).toBe('client:airi:ann')
    expect(readClientPerson({ clientName: 'airi', user: undefined, safetyIdentifier: 'h4sh' })).toBe(
      'client:airi:h4sh',
    )
    expect(readClientPerson({ clientName: 'airi', user: 'ann', safetyIdentifier: 'h4sh' })).toBe(
      'client:airi:ann',
    )
    expect(readClientPerson({ clientName: 'airi', user: undefined, safetyIdentifier: null })).toBeUndefined()
  })

  it('names no person for a caller that is no named client, whatever it sends', () => {
    expect(readClientPerson({ clientName: undefined, user: 'ann', safetyIdentifier: 'ann' })).toBeUndefined()
  })

  it('gives a person id that reads back with the end-user id whole, colons and all', () => {
    const person = readClientPerson({ clientName: 'olv', user: 'mail:ann@example.org' })
    expect(parsePersonId(person ?? '')).toEqual({
      ok: true,
      person: { source: 'client', name: 'olv', id: 'mail:ann@example.org' },
    })
  })
})
