/**
 * `/api/characters`: the characters a server plays, for the page's switcher and for programs. Every
 * change goes through the config manager, as `PUT /api/config` does: validated with the one schema,
 * written to the config file (so it survives a restart), applied from the next turn, refused whole
 * when invalid. The default character is `character`; the others are entries of `characters`.
 * A character of `characters_dir` is changed by entries of `characters` put over its file; it is
 * deleted by removing the file. Cards come in through `POST /api/characters/import` and go out
 * through `GET /api/characters/:id/card`.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Context, Hono } from 'hono'
import * as z from 'zod'
import { exportCharacterCard, importCharacterCard } from '../../characters/cards/index.js'
import { characterIdOf } from '../../config/character-id.js'
import { type CharacterConfig, type CharpipeConfig, characterIdKeySchema } from '../../config/schema.js'
import {
  createUnknownCharacterError,
  findCharacter,
  isDefaultCharacter,
  listCharacterIds,
} from '../../config/select-character-config.js'
import { respondBadRequest, respondWithError } from '../error-response.js'
import { readJsonBody } from '../read-json-body.js'
import type { ServerDependencies } from '../server-dependencies.js'

const characterBody = z.record(z.string(), z.unknown())

export interface CharacterSummary {
  id: string
  name: string
  /** The default character (`character`), which `user_input` without `character` speaks to. */
  default: boolean
  avatar: string
  /** Whether a new session opens with a greeting. */
  greets: boolean
}

function summarize(config: CharpipeConfig, id: string): CharacterSummary {
  const character = findCharacter(config, id)!
  return {
    id,
    name: character.name,
    default: isDefaultCharacter(config, id),
    avatar: character.avatar,
    greets: character.greeting !== '' || character.alternate_greetings.length > 0,
  }
}

/** The block as the config holds it (the key, not a filled-in id, for entries of `characters`). */
function readBlock(config: CharpipeConfig, id: string): CharacterConfig | undefined {
  if (isDefaultCharacter(config, id)) return config.character
  return Object.hasOwn(config.characters, id) ? config.characters[id] : undefined
}

/** The file of `characters_dir` a character comes from, when it comes from one. */
function findCharacterFile(config: CharpipeConfig, id: string): string | undefined {
  if (!config.characters_dir) return undefined
  return ['.yaml', '.yml', '.json', '.png']
    .map((extension) => join(config.characters_dir, `${id}${extension}`))
    .find((path) => existsSync(path))
}

/** The change a character body makes to the config: `character` for the default, else its entry. */
export function buildCharacterChange(
  config: CharpipeConfig,
  id: string,
  body: unknown,
): Record<string, unknown> {
  return isDefaultCharacter(config, id) ? { character: body } : { characters: { [id]: body } }
}

function readMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}

function checkNewId(context: Context, id: string): Response | undefined {
  const parsed = characterIdKeySchema.safeParse(id)
  if (parsed.success) return undefined
  return respondBadRequest(context, `character id "${id}": ${parsed.error.issues[0]!.message}`)
}

export function registerCharacterRoutes(app: Hono, dependencies: ServerDependencies): void {
  const { configManager } = dependencies

  app.get('/api/characters', (context) => {
    const config = configManager.current()
    return context.json({ characters: listCharacterIds(config).map((id) => summarize(config, id)) })
  })

  app.get('/api/characters/:id', (context) => {
    const config = configManager.current()
    const id = context.req.param('id')
    const block = readBlock(config, id)
    if (!block) return respondWithError(context, createUnknownCharacterError(config, id))
    return context.json({ id, default: isDefaultCharacter(config, id), character: block })
  })

  // Creates the character or changes it: the body is merged into it as PUT /api/config merges
  // (a field left out keeps its value, `null` removes it so its default applies).
  app.put('/api/characters/:id', async (context) => {
    const id = context.req.param('id')
    const refused = checkNewId(context, id)
    if (refused) return refused
    const body = await readJsonBody(context, characterBody)
    if (!body.ok) return body.response
    try {
      const config = await configManager.update(buildCharacterChange(configManager.current(), id, body.value))
      return context.json({ id, default: isDefaultCharacter(config, id), character: readBlock(config, id) })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  // A Character Card V2/V3 as JSON or PNG: checked whole before anything is kept (a bad card changes
  // nothing and the error names what is wrong), then kept like a PUT under an id of its name.
  app.post('/api/characters/import', async (context) => {
    const type = readMediaType(context.req.header('content-type'))
    if (type !== 'application/json' && type !== 'image/png') {
      return respondBadRequest(context, 'a card is sent as application/json or image/png', 415)
    }
    try {
      const bytes = new Uint8Array(await context.req.arrayBuffer())
      if (bytes.length === 0)
        return respondBadRequest(context, 'the body is empty: expected a character card')
      const imported = importCharacterCard(bytes, type)
      const id = findFreeCharacterId(configManager.current(), imported.id)
      await configManager.update({ characters: { [id]: imported.character } }, { source: 'card' })
      return context.json({ id }, 201)
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  // A V3 card of the character: JSON, or with ?format=png a PNG of its avatar (or a default picture).
  app.get('/api/characters/:id/card', (context) => {
    const config = configManager.current()
    const id = context.req.param('id')
    const character = findCharacter(config, id)
    if (!character) return respondWithError(context, createUnknownCharacterError(config, id))
    const format = context.req.query('format') ?? 'json'
    if (format !== 'json' && format !== 'png') {
      return respondBadRequest(
        context,
        `format: expected json or png, got ${JSON.stringify(format.slice(0, 20))}`,
      )
    }
    try {
      const bytes = exportCharacterCard(character, { format })
      return context.body(bytes.slice().buffer, 200, {
        'content-type': format === 'png' ? 'image/png' : 'application/json',
        'content-disposition': `attachment; filename="${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.${format}"; filename*=UTF-8''${encodeURIComponent(id)}.${format}`,
      })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.delete('/api/characters/:id', async (context) => {
    const config = configManager.current()
    const id = context.req.param('id')
    if (!readBlock(config, id)) return respondWithError(context, createUnknownCharacterError(config, id))
    if (isDefaultCharacter(config, id)) {
      return respondBadRequest(
        context,
        `"${id}" is the default character (character); make another one the default in the config file first`,
      )
    }
    const file = findCharacterFile(config, id)
    if (file) {
      return respondBadRequest(
        context,
        `"${id}" comes from characters_dir (${file}); remove that file instead`,
      )
    }
    try {
      await configManager.update({ characters: { [id]: null } })
      return context.json({ deleted: true, id })
    } catch (error) {
      return respondWithError(context, error)
    }
  })
}

/** The id an imported character is kept under: its own, or with `-2`, `-3`… when that is taken. */
export function findFreeCharacterId(config: CharpipeConfig, wanted: string): string {
  const taken = new Set(listCharacterIds(config))
  taken.add(characterIdOf(config.character))
  if (!taken.has(wanted)) return wanted
  for (let index = 2; ; index++) {
    const candidate = `${wanted.slice(0, 60)}-${index}`
    if (!taken.has(candidate)) return candidate
  }
}
