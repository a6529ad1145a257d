/**
 * `GET /v1/models`, OpenAI-compatible: every character listed as a model (the default first), since OpenAI-compatible chat
 * front-ends list the models first and offer them to pick from. The id is what such a front-end then
 * sends as `model` to `/v1/chat/completions`. Auth is the `/v1/*` token check of the server.
 */
import type { Hono } from 'hono'
import type { CharpipeConfig } from '../../config/schema.js'
import type { ServerDependencies } from '../server-dependencies.js'

export interface OpenAIModel {
  id: string
  object: 'model'
  created: number
  owned_by: 'charpipe'
}

/** The characters this server answers as, as OpenAI model entries. */
export function listCharacterModels(config: CharpipeConfig, created: number): OpenAIModel[] {
  // The default character keeps the model name it has always had: its name.
  const ids = [config.character.name, ...Object.keys(config.characters)]
  return ids.map((id) => ({ id, object: 'model', created, owned_by: 'charpipe' }))
}

export function registerOpenAIModelsRoute(app: Hono, dependencies: ServerDependencies): void {
  // Characters have no creation time of their own; the server's start stands in for it.
  const created = Math.floor(Date.now() / 1000)
  app.get('/v1/models', (context) =>
    context.json({
      object: 'list',
      data: listCharacterModels(dependencies.configManager.current(), created),
    }),
  )
}
