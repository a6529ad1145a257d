import { describe, expect, it } from 'vitest'
import { BadRequestError } from '../shared/errors.js'
import { validateGenerateInput } from './validate-generate-input.js'

describe('validateGenerateInput: person', () => {
  it('keeps a person id the caller names', () => {
    expect(validateGenerateInput({ text: 'hi', person: 'client:airi:ann' })).toMatchObject({
      session: 'default',
      person: 'client:airi:ann',
    })
    expect(validateGenerateInput({ text: 'hi' })).not.toHaveProperty('person')
  })

  it('refuses what is no person id, saying why', () => {
    expect(() => validateGenerateInput({ text: 'hi', person: 'airi:ann' })).toThrow(BadRequestError)
    expect(() => validateGenerateInput({ text: 'hi', person: 'airi:ann' })).toThrow(
      /^person: .*must start with/,
    )
    expect(() => validateGenerateInput({ text: 'hi', person: 42 as unknown as string })).toThrow(
      /person must be a person id string/,
    )
  })
})
