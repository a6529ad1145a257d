import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findForwardingHeader, forwardingHeaders } from './find-forwarding-header.js'

/** A name in any mix of upper and lower case, as a proxy may send it. */
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) =>
      [...name].map((letter, index) => (upper[index] ? letter.toUpperCase() : letter.toLowerCase())).join(''),
    )

const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/)

describe('findForwardingHeader', () => {
  it('names each forwarding header, whatever its case and value, even empty', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...forwardingHeaders).chain((name) => fc.tuple(fc.constant(name), anyCase(name))),
        fc.stringMatching(/^[ -~]{0,40}$/),
        ([name, sent], value) => {
          expect(findForwardingHeader(new Headers([[sent, value]]))).toBe(name)
        },
      ),
    )
  })

  it('finds none among headers that are not a proxy’s', () => {
    const forwarding = new Set(forwardingHeaders.map((name) => name.toLowerCase()))
    fc.assert(
      fc.property(fc.uniqueArray(headerName, { maxLength: 8 }), (names) => {
        const direct = names.filter((name) => !forwarding.has(name.toLowerCase()))
        expect(
          findForwardingHeader(new Headers(direct.map((name): [string, string] => [name, 'x']))),
        ).toBeUndefined()
      }),
    )
  })

  it('finds one among many direct headers', () => {
    const headers = new Headers({ accept: '*/*', 'user-agent': 'curl', 'x-real-ip': '203.0.113.9' })
    expect(findForwardingHeader(headers)).toBe('X-Real-IP')
    expect(findForwardingHeader(new Headers({ 'x-forwarded-for-me': '1' }))).toBeUndefined()
  })
})
