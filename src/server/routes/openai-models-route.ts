/**
 * `GET /v1/models`, OpenAI-compatible: every character listed as a model (the default first), since
 * OpenAI-compatible chat front-ends list the models first and offer them to pick from. The `id` is
 * what such a front-end then sends as `model` to `/v1/chat/completions`: the default character keeps
 * the id it has always been listed under (its name), the others their id; each entry also carries
 * the character's `name` and its `character` id, so a person can tell them apart (the model also
 * accepts either, case-insensitively). Auth is the `/v1/*` token check of the server.
 */
import type { Hono } from 'hono'
import type { CharpipeConfig } from '../../config/schema.js'
import { listModelCharacters } from '../select-model-character.js'
import type { ServerDependencies } from '../server-dependencies.js'

export interface OpenAIModel {
  id: string
  object: 'model'
  created: number
  owned_by: 'charpipe'
  /** The character's display name. */
  name: string
  /** The character's id (`character` of the other endpoints). */
  character: string
}

/** The characters this server answers as, as OpenAI model entries. */
function listCharacterModels(config: CharpipeConfig, created: number): OpenAIModel[] {
  return listModelCharacters(config).map((character) => ({
    id: character.engineId === undefined ? character.name : character.id,
    object: 'model',
    created,
    owned_by: 'charpipe',
    name: character.name,
    character: character.id,
  }))
}

export function registerOpenAIModelsRoute(app: Hono, dependencies: ServerDependencies): void {
  // Characters have no creation time of their own; the server's start stands in for it.
  const created = Math.floor(Date.now() / 1000)
  app.get('/v1/models', dependencies.admit('chat'), (context) =>
    context.json({
      object: 'list',
      data: listCharacterModels(dependencies.configManager.current(), created),
    }),
  )
}
