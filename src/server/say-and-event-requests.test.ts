/**
 * The say and event requests as the server reads them from outside: the `say` and `event` frames
 * (parse-client-frame.ts), the `POST …/say` and `…/events` bodies (read-json-body.ts), and what the
 * engine takes (`sessions.say`, `sessions.event`). Junk never throws: it is taken with the right
 * types, or refused with a reason that names what is wrong.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCharpipe } from '../engine/index.js'
import type { Charpipe } from '../engine/types.js'
import { CharpipeError } from '../shared/errors.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { readJsonBody } from './read-json-body.js'
import { eventBodySchema, sayBodySchema } from './request-schemas.js'
import { parseClientFrame } from './websocket/parse-client-frame.js'

const junkValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
)
/** Field names a client might send: the real ones, near misses, anything. */
const fieldName = fc.oneof(
  fc.constantFrom('session', 'character', 'text', 'emotion', 'respond', 'type', 'turn', 'id'),
  fc.string({ maxLength: 12 }),
)
const junkObject = fc.dictionary(fieldName, junkValue, { maxKeys: 6 })

describe('say and event frames', () => {
  it.each([
    [{ type: 'say', session: 'room', text: '你好', emotion: '开心' }],
    [{ type: 'say', text: '你好', character: 'alice' }],
    [{ type: 'event', session: 'room', text: '下雨了', respond: true }],
    [{ type: 'event', text: '下雨了' }],
  ])('takes %j', (frame) => {
    expect(parseClientFrame({ data: JSON.stringify(frame), maxFrameBytes: 4096 })).toMatchObject({
      ok: true,
      frame,
    })
  })

  it.each([
    [{ type: 'say' }, 'say frame: '],
    [{ type: 'say', text: 5 }, 'text'],
    [{ type: 'event', text: 'x', respond: 'yes' }, 'respond'],
    [{ type: 'say', text: 'x', volume: 3 }, 'volume'],
  ])('refuses %j, naming the field', (frame, reason) => {
    const parsed = parseClientFrame({ data: JSON.stringify(frame), maxFrameBytes: 4096 })
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.message).toContain(reason)
  })

  it('never throws: any fields are a frame with the right types or a reason', () => {
    fc.assert(
      fc.property(fc.constantFrom('say', 'event'), junkObject, (type, fields) => {
        const data = JSON.stringify({ ...fields, type })
        const parsed = parseClientFrame({ data, maxFrameBytes: 1 << 16 })
        if (!parsed.ok) {
          expect(parsed.message).toMatch(/frame|forbidden|__proto__|constructor|prototype/)
          return
        }
        const frame = parsed.frame as Record<string, unknown>
        expect(frame.type).toBe(type)
        expect(typeof frame.text).toBe('string')
        if (frame.respond !== undefined) expect(typeof frame.respond).toBe('boolean')
        if (frame.emotion !== undefined) expect(typeof frame.emotion).toBe('string')
      }),
    )
  })
})

describe('say and event bodies', () => {
  const app = new Hono()
  app.post('/say', async (context) => {
    const body = await readJsonBody(context, sayBodySchema)
    return body.ok ? context.json(body.value) : body.response
  })
  app.post('/events', async (context) => {
    const body = await readJsonBody(context, eventBodySchema)
    return body.ok ? context.json(body.value) : body.response
  })

  it('never throws: any body is taken with the right types or refused 400 with a reason', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/say', '/events'),
        fc.oneof(
          junkObject.map((value) => JSON.stringify(value)),
          fc.string(),
        ),
        async (path, text) => {
          const response = await app.request(path, { method: 'POST', body: text })
          const answer = (await response.json()) as Record<string, unknown> & {
            error?: { code: string; message: string }
          }
          if (response.status === 200) {
            expect(typeof answer.text).toBe('string')
            if (answer.respond !== undefined) expect(typeof answer.respond).toBe('boolean')
            return
          }
          expect(response.status).toBe(400)
          expect(answer.error?.code).toBe('bad_request')
          expect(answer.error?.message.length).toBeGreaterThan(5)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('what the engine takes', () => {
  let charpipe: Charpipe
  beforeAll(async () => {
    charpipe = await createCharpipe(makeConfig({ conversation: { max_input_chars: 50 } }), {
      provider: createScriptedProvider([]),
    })
  })
  afterAll(async () => {
    await charpipe.close()
  })

  it('refuses junk with a bad request naming the field, and says what is well formed', async () => {
    await fc.assert(
      fc.asyncProperty(junkObject, async (fields) => {
        // A respond that would start a model turn is left out: this is about reading the input.
        const { respond: _respond, ...input } = fields
        for (const call of [
          async () => charpipe.sessions.say(input as never),
          () => charpipe.sessions.event(input as never),
        ]) {
          try {
            const result = await call()
            expect(typeof input.text).toBe('string')
            expect(String(input.text).trim()).not.toBe('')
            expect(result).toBeTypeOf('object')
          } catch (error) {
            expect(CharpipeError.isInstance(error) && error.code).toBe('bad_request')
            expect((error as Error).message).toMatch(/session|character|text|emotion|respond|max_input_chars/)
          }
        }
      }),
      { numRuns: 100 },
    )
  })
})
