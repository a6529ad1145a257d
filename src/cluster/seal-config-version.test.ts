import { describe, expect, it } from 'vitest'
import { createConfigVersionSeal } from './seal-config-version.js'

const secret = 'seal-test-shared-secret-0123456789'
const config = { llm: { api_key: 'sk-very-secret-key-123456' }, character: { name: 'Ari' } }

describe('a sealed config version', () => {
  it('opens with the same secret to the same config, and holds no secret in clear', () => {
    const seal = createConfigVersionSeal(secret)
    const sealed = seal.seal(7, 'server-a', config)
    expect(JSON.stringify(sealed)).not.toContain('sk-very-secret')
    expect(JSON.stringify(sealed)).not.toContain('Ari')
    expect(seal.open(sealed)).toEqual({ version: 7, from: 'server-a', config })
  })

  it.each([
    ['another secret', (sealed: Record<string, string>) => sealed, 'another-shared-secret-0123456789'],
    ['a raised version number', (sealed: Record<string, string>) => ({ ...sealed, version: '8' }), secret],
    ['another author', (sealed: Record<string, string>) => ({ ...sealed, from: 'server-b' }), secret],
    [
      'changed bytes',
      (sealed: Record<string, string>) => ({
        ...sealed,
        payload: `${sealed.payload!.startsWith('A') ? 'B' : 'A'}${sealed.payload!.slice(1)}`,
      }),
      secret,
    ],
    ['no signature', (sealed: Record<string, string>) => ({ ...sealed, signature: '' }), secret],
  ])('is refused with %s', (_name, tamper, openWith) => {
    const sealed = createConfigVersionSeal(secret).seal(7, 'server-a', config)
    const tampered = tamper({ ...sealed } as unknown as Record<string, string>)
    expect(() => createConfigVersionSeal(openWith).open(tampered)).toThrow(/signature|not signed/)
  })
})
