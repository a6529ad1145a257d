import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { clientFrameTypes } from '../request-schemas.js'
import { parseClientFrame } from './parse-client-frame.js'

const maxFrameBytes = 1024
const parse = (data: unknown) => parseClientFrame({ data, maxFrameBytes })

describe('parseClientFrame', () => {
  it.each([
    ['a binary frame', Buffer.from('{}'), 'binary frames are not accepted'],
    [
      'a frame over the size bound',
      JSON.stringify({ type: 'observe', text: 'x'.repeat(2000) }),
      'more than server.max_body_bytes (1024)',
    ],
    ['JSON nested too deep', `${'['.repeat(200)}${']'.repeat(200)}`, 'nests deeper than'],
    ['text that is not JSON', '{"type":', 'not valid JSON'],
    ['an array', '[]', 'must be a JSON object with a "type"'],
    ['null', 'null', 'must be a JSON object with a "type"'],
    ['a forbidden key', '{"type":"observe","text":"x","__proto__":{}}', '__proto__'],
    ['an unknown type', '{"type":"dance"}', 'type: unknown frame type "dance"; expected user_input'],
    ['no type', '{"text":"hi"}', 'type: unknown frame type null'],
    ['a known type with a bad field', '{"type":"user_input","text":5}', 'user_input frame: '],
  ])('refuses %s, saying why', (_name, data, reason) => {
    const parsed = parse(data)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.message).toContain(reason)
  })

  it.each([
    [{ type: 'user_input', text: 'hi', session: 'room' }],
    [{ type: 'interrupt', heard: 'Hel', clear_queue: true }],
    [{ type: 'open', session: 'room' }],
    [{ type: 'activity', speaking: true }],
    [{ type: 'observe', text: 'hello', speaker: { id: 'u1', name: 'Ann' } }],
  ])('takes %j', (frame) => {
    expect(parse(JSON.stringify(frame))).toMatchObject({ ok: true, frame })
  })

  it('never throws: any text or value is a frame or a reason', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.anything()), (data) => {
        const parsed = parse(data)
        if (!parsed.ok) expect(parsed.message.length).toBeGreaterThan(0)
        else expect(clientFrameTypes).toContain(parsed.frame.type)
      }),
    )
  })

  it('any JSON object of an unknown type is refused naming the types there are', () => {
    fc.assert(
      fc.property(
        // Forbidden keys (`__proto__`, …) are refused first, for their own reason.
        fc.dictionary(
          fc.string().filter((key) => !['__proto__', 'constructor', 'prototype'].includes(key)),
          fc.string(),
        ),
        fc
          .oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()))
          .filter((type) => !(clientFrameTypes as readonly unknown[]).includes(type)),
        (fields, type) => {
          const parsed = parseClientFrame({ data: JSON.stringify({ ...fields, type }), maxFrameBytes: 1e9 })
          expect(parsed).toMatchObject({ ok: false, message: expect.stringContaining('unknown frame type') })
          if (!parsed.ok) expect(parsed.message).toContain(`expected ${clientFrameTypes.join(', ')}`)
        },
      ),
    )
  })
})
