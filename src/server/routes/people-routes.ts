/**
 * The people of a character's memory, for the administration (`memory.per_person`): who spoke to
 * it, what is kept about each, links joining one person's ids on different sources, export and
 * erasure. Person ids in paths are URL-encoded and checked (a 400 names what is wrong); an unknown
 * person is a 404. An erasure is logged without what was erased.
 */
import type { Context, Hono } from 'hono'
import * as z from 'zod'
import type { PeopleDirectory } from '../../memory/people/create-people-directory.js'
import type { MemoryRecord } from '../../memory/types.js'
import { respondBadRequest, respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import type { ServerDependencies } from '../server-dependencies.js'

const linkBodySchema = z.strictObject({
  ids: z.array(z.string()).min(1).max(100).describe('Person ids to link with this one.'),
})

const patchBodySchema = z.strictObject({
  text: z.string().trim().min(1).describe("The memory's new text."),
})

function formatMemory(record: MemoryRecord) {
  return {
    id: record.id,
    text: record.text,
    time: new Date(record.time).toISOString(),
    source_turn: record.sourceTurn ?? null,
  }
}

function notFound(context: Context, message: string) {
  return context.json({ error: { code: 'not_found', message } }, 404)
}

const unknownPerson = (context: Context, person: string) =>
  notFound(context, `no person ${JSON.stringify(person)} is known to this character`)

export function registerPeopleRoutes(app: Hono, dependencies: ServerDependencies): void {
  const { admit } = dependencies

  app.use('/api/people', requireMemory)
  app.use('/api/people/*', requireMemory)

  async function requireMemory(context: Context, next: () => Promise<void>) {
    if (!dependencies.charpipe.memory) {
      const message = 'long-term memory is disabled (memory.enabled: false)'
      return context.json({ error: { code: 'memory_disabled', message } }, 503)
    }
    await next()
  }

  /** The directory of the `character` the query names, and the answer of `handler` over it. */
  const withPeople = async (context: Context, handler: (people: PeopleDirectory) => Promise<Response>) => {
    try {
      const character = context.req.query('character')
      return await handler(dependencies.charpipe.people.of(character ? { character } : {}))
    } catch (error) {
      return respondWithError(context, error)
    }
  }

  app.get('/api/people', admit('admin'), (context) =>
    withPeople(context, async (people) => {
      const listed = await people.list()
      return context.json({
        people: listed.map((person) => ({
          id: person.id,
          names: person.names,
          links: person.links,
          memories: person.memories,
          last_seen: person.lastSeen === undefined ? null : new Date(person.lastSeen).toISOString(),
        })),
      })
    }),
  )

  app.get('/api/people/:id/memories', admit('admin'), (context) =>
    withPeople(context, async (people) => {
      const person = context.req.param('id')
      const memories = await people.memories(person)
      if (!memories) return unknownPerson(context, person)
      return context.json({ memories: memories.map(formatMemory) })
    }),
  )

  app.get('/api/people/:id/export', admit('admin'), (context) =>
    withPeople(context, async (people) => {
      const person = context.req.param('id')
      const memories = await people.memories(person)
      if (!memories) return unknownPerson(context, person)
      context.header('Content-Disposition', 'attachment; filename="person.json"')
      return context.json({
        id: person,
        character: context.req.query('character') ?? null,
        links: await people.links(person),
        memories: memories.map(formatMemory),
      })
    }),
  )

  app.patch('/api/people/:id/memories/:memory', admit('admin'), async (context) => {
    const body = await readJsonBody(context, patchBodySchema)
    if (!body.ok) return body.response
    return withPeople(context, async (people) => {
      const memory = context.req.param('memory')
      const updated = await people.updateMemory(context.req.param('id'), memory, body.value.text)
      if (!updated) return notFound(context, `this person has no memory with id ${memory}`)
      return context.json(formatMemory(updated))
    })
  })

  app.delete('/api/people/:id/memories/:memory', admit('admin'), (context) =>
    withPeople(context, async (people) => {
      const memory = context.req.param('memory')
      if (!(await people.deleteMemory(context.req.param('id'), memory)))
        return notFound(context, `this person has no memory with id ${memory}`)
      return context.json({ deleted: true })
    }),
  )

  app.delete('/api/people/:id/memories', admit('admin'), (context) => {
    const history = context.req.query('history') ?? 'false'
    if (history !== 'true' && history !== 'false')
      return respondBadRequest(context, 'history: expected true or false')
    return withPeople(context, async (people) => {
      const person = context.req.param('id')
      const erased = await people.erase(person, { history: history === 'true' })
      if (!erased) return unknownPerson(context, person)
      // Who was erased and how much, never what: the log must not keep what was just erased.
      dependencies.logger.info(
        {
          audit: 'person_erased',
          person,
          character: context.req.query('character') ?? null,
          history: history === 'true',
          removed: erased.removed,
          links: erased.links,
        },
        'a person was erased from memory',
      )
      return context.json({ removed: erased.removed })
    })
  })

  app.post('/api/people/:id/links', admit('admin'), async (context) => {
    const body = await readJsonBody(context, linkBodySchema)
    if (!body.ok) return body.response
    return withPeople(context, async (people) => {
      const linked = await people.link(context.req.param('id'), body.value.ids)
      return context.json({ id: linked[0], links: linked.slice(1) })
    })
  })

  app.delete('/api/people/:id/links/:other', admit('admin'), (context) =>
    withPeople(context, async (people) => {
      const person = context.req.param('id')
      const other = context.req.param('other')
      if (!(await people.unlink(person, other)))
        return notFound(context, `${JSON.stringify(person)} is not linked with ${JSON.stringify(other)}`)
      return context.json({ id: person, links: await people.links(person) })
    }),
  )
}
