/**
 * `/api/characters`: the characters a server plays, for the page's switcher and for programs. Every
 * change goes through the config manager, as `PUT /api/config` does: validated with the one schema,
 * written to the config file (so it survives a restart), applied from the next turn, refused whole
 * when invalid. The default character is `character`; the others are entries of `characters`.
 * A character of the characters folder (`characters_dir`) is changed by entries of `characters` put
 * over its file. Cards come in through `POST /api/characters/import`, which keeps each one as a file
 * of that folder (its picture beside it), so config.yaml stays a file a person edits; importing a
 * card that is already there updates it (`?as_new=true` keeps both). They go out through
 * `GET /api/characters/:id/card`; a character's picture is served by `GET /api/characters/:id/avatar`
 * so the list stays small whatever the pictures weigh.
 */
import { existsSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context, Hono } from 'hono'
import * as z from 'zod'
import { exportCharacterCard, importCharacterCard } from '../../characters/cards/index.js'
import {
  avatarTypes,
  characterFileExtensions,
  findAvatarFile,
  readAvatarType,
  resolveCharactersDir,
} from '../../characters/characters-folder.js'
import { parseConfigText } from '../../characters/load-config.js'
import { saveCharacterCard } from '../../characters/save-character-card.js'
import { characterIdOf } from '../../config/character-id.js'
import { describeCharacterInUse } from '../../config/find-character-users.js'
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
  /** A URL of the picture (`/api/characters/:id/avatar` for a picture file or a data URI), or ''. */
  avatar: string
  /** Whether a new session opens with a greeting. */
  greets: boolean
}

const dataUri = /^data:(image\/[a-z0-9.+-]+);base64,/i

function avatarUrlOf(config: CharpipeConfig, id: string, character: CharacterConfig): string {
  const served = `/api/characters/${encodeURIComponent(id)}/avatar`
  if (dataUri.test(character.avatar)) return served
  if (character.avatar) return character.avatar
  return !isDefaultCharacter(config, id) && findAvatarFile(resolveCharactersDir(config).dir, id) ? served : ''
}

function summarize(config: CharpipeConfig, id: string): CharacterSummary {
  const character = findCharacter(config, id)!
  return {
    id,
    name: character.name,
    default: isDefaultCharacter(config, id),
    avatar: avatarUrlOf(config, id, character),
    greets: character.greeting !== '' || character.alternate_greetings.length > 0,
  }
}

/** The block as the config holds it (the key, not a filled-in id, for entries of `characters`). */
function readBlock(config: CharpipeConfig, id: string): CharacterConfig | undefined {
  if (isDefaultCharacter(config, id)) return config.character
  return Object.hasOwn(config.characters, id) ? config.characters[id] : undefined
}

/** The files of the characters folder that make the character (its file and its picture). */
function findCharacterFiles(config: CharpipeConfig, id: string): string[] {
  const { dir } = resolveCharactersDir(config)
  return [...characterFileExtensions, ...Object.keys(avatarTypes)]
    .map((extension) => join(dir, `${id}${extension}`))
    .filter((path) => existsSync(path))
}

/** The character with its picture file (a PNG of the characters folder) as its avatar, for export. */
async function withAvatarFile(
  config: CharpipeConfig,
  id: string,
  character: CharacterConfig,
): Promise<CharacterConfig> {
  if (character.avatar || isDefaultCharacter(config, id)) return character
  const file = findAvatarFile(resolveCharactersDir(config).dir, id)
  if (!file || readAvatarType(file) !== 'image/png') return character
  return { ...character, avatar: `data:image/png;base64,${(await readFile(file)).toString('base64')}` }
}

/** Whether config.yaml itself holds an entry for the id (an older import, or changes over a file). */
async function fileHasEntry(configPath: string, id: string): Promise<boolean> {
  let text: string
  try {
    text = await readFile(configPath, 'utf8')
  } catch {
    return false
  }
  const characters = parseConfigText(text, configPath).characters
  return typeof characters === 'object' && characters !== null && Object.hasOwn(characters, id)
}

/** The change a character body makes to the config: `character` for the default, else its entry. */
function buildCharacterChange(config: CharpipeConfig, id: string, body: unknown): Record<string, unknown> {
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
  const { configManager, admit } = dependencies

  app.get('/api/characters', admit('admin'), (context) => {
    const config = configManager.current()
    return context.json({ characters: listCharacterIds(config).map((id) => summarize(config, id)) })
  })

  app.get('/api/characters/:id', admit('admin'), (context) => {
    const config = configManager.current()
    const id = context.req.param('id')
    const block = readBlock(config, id)
    if (!block) return respondWithError(context, createUnknownCharacterError(config, id))
    return context.json({ id, default: isDefaultCharacter(config, id), character: block })
  })

  // Creates the character or changes it: the body is merged into it as PUT /api/config merges
  // (a field left out keeps its value, `null` removes it so its default applies).
  app.put('/api/characters/:id', admit('admin'), async (context) => {
    const id = context.req.param('id')
    const refused = checkNewId(context, id)
    if (refused) return refused
    const body = await readJsonBody(context, characterBody)
    if (!body.ok) return body.response
    const current = configManager.current()
    const renamedTo = (body.value as { name?: unknown }).name
    if (
      typeof renamedTo === 'string' &&
      readBlock(current, id) &&
      readBlock(current, id)?.name !== renamedTo
    ) {
      const inUse = describeCharacterInUse(current, id, 'renamed', {
        ...readBlock(current, id)!,
        name: renamedTo,
      })
      if (inUse) return context.json({ error: { code: 'conflict', message: inUse } }, 409)
    }
    try {
      const config = await configManager.update(buildCharacterChange(configManager.current(), id, body.value))
      return context.json({ id, default: isDefaultCharacter(config, id), character: readBlock(config, id) })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  // A Character Card V1/V2/V3 as JSON or PNG: checked whole before anything is kept (a bad card
  // changes nothing and the error names what is wrong), then kept as a file of the characters folder
  // under an id of its name. The same card again updates that character, unless `as_new=true`.
  app.post('/api/characters/import', admit('admin'), async (context) => {
    const type = readMediaType(context.req.header('content-type'))
    if (type !== 'application/json' && type !== 'image/png') {
      return respondBadRequest(context, 'a card is sent as application/json or image/png', 415)
    }
    const asNew = context.req.query('as_new')
    if (asNew !== undefined && asNew !== 'true' && asNew !== 'false')
      return respondBadRequest(
        context,
        `as_new: expected true or false, got ${JSON.stringify(asNew.slice(0, 20))}`,
      )
    try {
      const bytes = new Uint8Array(await context.req.arrayBuffer())
      if (bytes.length === 0)
        return respondBadRequest(context, 'the body is empty: expected a character card')
      const imported = importCharacterCard(bytes, type)
      const config = configManager.current()
      const updated =
        asNew !== 'true' &&
        !isDefaultCharacter(config, imported.id) &&
        listCharacterIds(config).includes(imported.id)
      const id = updated ? imported.id : findFreeCharacterId(config, imported.id)
      const saved = await saveCharacterCard({
        dir: resolveCharactersDir(config).dir,
        id,
        cardJson: imported.cardJson,
        picture: imported.picture,
      })
      try {
        // The card replaces the character whole: changes kept in config.yaml for that id go.
        const entry = await fileHasEntry(configManager.status().path, id)
        // The card passes the trust gate as any change from outside the file does.
        await configManager.update(entry ? { characters: { [id]: null } } : {}, { source: 'card' })
      } catch (error) {
        await saved.restore()
        throw error
      }
      return context.json({ id, updated }, updated ? 200 : 201)
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  // The character's picture: its file in the characters folder, or the data URI its block holds.
  app.get('/api/characters/:id/avatar', admit('admin'), async (context) => {
    const config = configManager.current()
    const id = context.req.param('id')
    const character = findCharacter(config, id)
    if (!character) return respondWithError(context, createUnknownCharacterError(config, id))
    const headers = { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }
    const inline = dataUri.exec(character.avatar)
    if (inline) {
      const bytes = Buffer.from(character.avatar.slice(character.avatar.indexOf(',') + 1), 'base64')
      return context.body(new Uint8Array(bytes), 200, {
        ...headers,
        'content-type': inline[1]!.toLowerCase(),
      })
    }
    const file = isDefaultCharacter(config, id)
      ? undefined
      : findAvatarFile(resolveCharactersDir(config).dir, id)
    if (!file) return respondBadRequest(context, `character "${id}" has no picture`, 404)
    return context.body(new Uint8Array(await readFile(file)), 200, {
      ...headers,
      'content-type': readAvatarType(file),
    })
  })

  // A V3 card of the character: JSON, or with ?format=png a PNG of its avatar (or a default picture).
  app.get('/api/characters/:id/card', admit('admin'), async (context) => {
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
      const bytes = exportCharacterCard(await withAvatarFile(config, id, character), { format })
      // A copy with its own ArrayBuffer: the bytes may be a view into Node's shared Buffer pool,
      // whose `.buffer` holds other data around them.
      return context.body(new Uint8Array(bytes), 200, {
        'content-type': format === 'png' ? 'image/png' : 'application/json',
        'content-disposition': `attachment; filename="${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.${format}"; filename*=UTF-8''${encodeURIComponent(id)}.${format}`,
      })
    } catch (error) {
      return respondWithError(context, error)
    }
  })

  app.delete('/api/characters/:id', admit('admin'), async (context) => {
    const config = configManager.current()
    const id = context.req.param('id')
    if (!readBlock(config, id)) return respondWithError(context, createUnknownCharacterError(config, id))
    if (isDefaultCharacter(config, id)) {
      return respondBadRequest(
        context,
        `"${id}" is the default character (character); make another one the default in the config file first`,
      )
    }
    // Refused before any file is removed: a connector or a client speaking as it keeps it.
    const inUse = describeCharacterInUse(config, id, 'deleted')
    if (inUse) return context.json({ error: { code: 'conflict', message: inUse } }, 409)
    try {
      // Its files go first: the config then no longer finds it there.
      for (const file of findCharacterFiles(config, id)) await rm(file, { force: true })
      const entry = await fileHasEntry(configManager.status().path, id)
      await configManager.update(entry ? { characters: { [id]: null } } : {})
      return context.json({ deleted: true, id })
    } catch (error) {
      return respondWithError(context, error)
    }
  })
}

/** The id an imported character is kept under: its own, or with `-2`, `-3`… when that is taken. */
function findFreeCharacterId(config: CharpipeConfig, wanted: string): string {
  const taken = new Set(listCharacterIds(config))
  taken.add(characterIdOf(config.character))
  if (!taken.has(wanted)) return wanted
  for (let index = 2; ; index++) {
    const candidate = `${wanted.slice(0, 60)}-${index}`
    if (!taken.has(candidate)) return candidate
  }
}
