/**
 * Long-term memory and knowledge base endpoints, through `charpipe.memory`. Times go out and come
 * in as ISO 8601. With `memory.enabled: false` every call answers 503 saying so.
 */
import type { Context, Hono } from 'hono'
import type { MemoryChange, MemoryHit, MemoryRecord } from '../../memory/types.js'
import { respondBadRequest, respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import {
  addKnowledgeBodySchema,
  addMemoryBodySchema,
  formatZodIssues,
  memorySearchQuerySchema,
  patchMemoryBodySchema,
} from '../request-schemas.js'
import type { ServerDependencies } from '../server-dependencies.js'

function formatRecord(record: MemoryRecord) {
  return {
    id: record.id,
    scope: record.scope,
    text: record.text,
    speaker: record.speaker ?? null,
    time: new Date(record.time).toISOString(),
    metadata: record.metadata ?? {},
  }
}

function formatHit(hit: MemoryHit) {
  return { ...formatRecord(hit), score: hit.score, kind: hit.kind, sourceName: hit.sourceName ?? null }
}

function formatChange(change: MemoryChange) {
  return { ...change, time: new Date(change.time).toISOString() }
}

const notFound = (context: Context, id: string) =>
  context.json({ error: { code: 'not_found', message: `no memory with id ${id}` } }, 404)

export function registerMemoryRoutes(app: Hono, dependencies: ServerDependencies): void {
  const { admit } = dependencies
  const memoryStore = () => dependencies.charpipe.memory

  app.use('/api/memory/*', requireMemory)
  app.use('/api/memory', requireMemory)
  app.use('/api/kb/*', requireMemory)
  app.use('/api/kb', requireMemory)

  async function requireMemory(context: Context, next: () => Promise<void>) {
    if (!memoryStore()) {
      return context.json(
        {
          error: { code: 'memory_disabled', message: 'long-term memory is disabled (memory.enabled: false)' },
        },
        503,
      )
    }
    await next()
  }

  const guard = async (context: Context, handler: () => Promise<Response>) => {
    try {
      return await handler()
    } catch (error) {
      return respondWithError(context, error)
    }
  }

  app.post('/api/memory', admit('admin'), async (context) => {
    const body = await readJsonBody(context, addMemoryBodySchema)
    if (!body.ok) return body.response
    const { scope, time, ...rest } = body.value
    return guard(context, async () => {
      const record = await memoryStore()!.add({
        ...rest,
        scope: scope ?? 'default',
        time: time === undefined ? undefined : Date.parse(time),
      })
      return context.json({ id: record.id }, 201)
    })
  })

  app.get('/api/memory/search', admit('admin'), async (context) => {
    const parsed = memorySearchQuerySchema.safeParse(context.req.query())
    if (!parsed.success) return respondBadRequest(context, formatZodIssues(parsed.error))
    const { q, scope, k } = parsed.data
    return guard(context, async () => {
      const hits = await memoryStore()!.search(q, { scope: scope ?? 'default', k: k ?? 10 })
      return context.json({ results: hits.map(formatHit) })
    })
  })

  app.get('/api/memory', admit('admin'), async (context) => {
    const limit = Number(context.req.query('limit') ?? 100)
    const offset = Number(context.req.query('offset') ?? 0)
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) {
      return respondBadRequest(context, 'limit and offset: expected non-negative integers (limit at least 1)')
    }
    return guard(context, async () => {
      const records = await memoryStore()!.list({ scope: context.req.query('scope'), limit, offset })
      return context.json({ memories: records.map(formatRecord) })
    })
  })

  app.get('/api/memory/:id', admit('admin'), (context) =>
    guard(context, async () => {
      const record = await memoryStore()!.get(context.req.param('id'))
      return record ? context.json(formatRecord(record)) : notFound(context, context.req.param('id'))
    }),
  )

  app.patch('/api/memory/:id', admit('admin'), async (context) => {
    const body = await readJsonBody(context, patchMemoryBodySchema)
    if (!body.ok) return body.response
    const { time, ...rest } = body.value
    return guard(context, async () => {
      const patch = time === undefined ? rest : { ...rest, time: Date.parse(time) }
      const record = await memoryStore()!.update(context.req.param('id'), patch)
      return record ? context.json(formatRecord(record)) : notFound(context, context.req.param('id'))
    })
  })

  app.delete('/api/memory/:id', admit('admin'), (context) =>
    guard(context, async () => {
      const deleted = await memoryStore()!.delete(context.req.param('id'))
      return deleted ? context.json({ deleted: true }) : notFound(context, context.req.param('id'))
    }),
  )

  app.get('/api/memory/:id/history', admit('admin'), (context) =>
    guard(context, async () => {
      const id = context.req.param('id')
      const changes = await memoryStore()!.history(id)
      // No change on record and no such memory: an id never given, answered as GET /api/memory/:id is.
      if (changes.length === 0 && !(await memoryStore()!.get(id))) return notFound(context, id)
      return context.json({ changes: changes.map(formatChange) })
    }),
  )

  app.post('/api/kb', admit('admin'), async (context) => {
    const body = await readJsonBody(context, addKnowledgeBodySchema)
    if (!body.ok) return body.response
    return guard(context, async () => {
      const document = await memoryStore()!.addKnowledge(body.value)
      return context.json({ id: document.id, chunks: document.chunks }, 201)
    })
  })

  app.get('/api/kb', admit('admin'), (context) =>
    guard(context, async () => {
      const documents = await memoryStore()!.listKnowledge()
      return context.json({
        documents: documents.map((document) => ({
          ...document,
          createdAt: new Date(document.createdAt).toISOString(),
        })),
      })
    }),
  )

  app.delete('/api/kb/:id', admit('admin'), (context) =>
    guard(context, async () => {
      const deleted = await memoryStore()!.removeKnowledge(context.req.param('id'))
      return deleted
        ? context.json({ deleted: true })
        : context.json(
            {
              error: {
                code: 'not_found',
                message: `no knowledge document with id ${context.req.param('id')}`,
              },
            },
            404,
          )
    }),
  )
}
