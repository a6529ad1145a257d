/**
 * The config.yaml schema: the single source of truth for its fields, defaults and descriptions.
 * The loader, the admin API, the web page's forms, `config.schema.json` and docs/config.md all read
 * this one declaration. Sections use `.prefault({})` so a missing section still gets every inner
 * default; objects are strict so a misspelt key is reported instead of silently ignored.
 */
import * as z from 'zod'
import { assetsSchema } from './schema/assets.js'
import { audienceSchema } from './schema/audience.js'
import {
  characterIdKeySchema,
  characterSchema,
  type lorebookEntrySchema,
  type lorebookSchema,
  type replyFormatSchema,
} from './schema/character.js'
import { clusterSchema } from './schema/cluster.js'
import {
  type bilibiliConnectorSchema,
  connectorsSchema,
  type onebotConnectorSchema,
  type twitchConnectorSchema,
} from './schema/connectors.js'
import { conversationSchema } from './schema/conversation.js'
import type { processorSettingsSchema } from './schema/fields.js'
import { type fallbackProviderSchema, llmSchema, openclawSchema } from './schema/llm.js'
import { historySchema, memorySchema, storageSchema } from './schema/memory.js'
import { sentenceSchema, type speechFilterSchema } from './schema/sentence.js'
import { type clientProfileSchema, type serverClientSchema, serverSchema } from './schema/server.js'
import {
  type mcpRemoteServerSchema,
  type mcpServerSchema,
  type mcpStdioServerSchema,
  pipelineSchema,
  toolsSchema,
} from './schema/tools.js'

export { characterIdKeySchema, characterSchema, lorebookSchema } from './schema/character.js'
export { bilibiliConnectorSchema, onebotConnectorSchema, twitchConnectorSchema } from './schema/connectors.js'
export { conversationSchema } from './schema/conversation.js'
export { llmSchema } from './schema/llm.js'
export { sentenceSchema } from './schema/sentence.js'
export { mcpServerSchema } from './schema/tools.js'

export const configSchema = z
  .strictObject({
    server: serverSchema.prefault({}),
    llm: llmSchema.prefault({}),
    openclaw: openclawSchema.prefault({}),
    character: characterSchema.prefault({}),
    characters: z
      .record(characterIdKeySchema, characterSchema)
      .default({})
      .describe(
        'More characters served by the same server, by id (user_input / POST /api/chat `character`, the OpenAI `model`); `character` stays the default one.',
      ),
    characters_dir: z
      .string()
      .default('')
      .describe(
        'A folder with one file per character (YAML, or a Character Card V2/V3 as .json or .png); the file name without extension is the id. Entries of `characters` with the same id are merged over them.',
      ),
    history: historySchema.prefault({}),
    conversation: conversationSchema.prefault({}),
    memory: memorySchema.prefault({}),
    sentence: sentenceSchema.prefault({}),
    assets: assetsSchema.prefault({}),
    storage: storageSchema.prefault({}),
    pipeline: pipelineSchema.prefault({}),
    tools: toolsSchema.prefault({}),
    cluster: clusterSchema.prefault({}),
    audience: audienceSchema.prefault({}),
    connectors: connectorsSchema.prefault({}),
  })
  .describe('charpipe configuration (config.yaml).')

/** The parsed config with every default filled in. */
export type CharpipeConfig = z.infer<typeof configSchema>
/** What a user may write: every field optional. */
export type CharpipeConfigInput = z.input<typeof configSchema>
export type FallbackProviderConfig = z.infer<typeof fallbackProviderSchema>
export type ProcessorSettings = z.infer<typeof processorSettingsSchema>
export type CharacterConfig = z.infer<typeof characterSchema>
export type LorebookConfig = z.infer<typeof lorebookSchema>
export type LorebookEntryConfig = z.infer<typeof lorebookEntrySchema>
export type SentenceConfig = z.infer<typeof sentenceSchema>
export type ReplyFormat = z.infer<typeof replyFormatSchema>
export type SpeechFilter = z.infer<typeof speechFilterSchema>
export type McpServerConfig = z.infer<typeof mcpServerSchema>
export type McpStdioServerConfig = z.infer<typeof mcpStdioServerSchema>
export type McpRemoteServerConfig = z.infer<typeof mcpRemoteServerSchema>
export type ServerClientConfig = z.infer<typeof serverClientSchema>
export type ClientProfileConfig = z.infer<typeof clientProfileSchema>
export type OnebotConnectorConfig = z.infer<typeof onebotConnectorSchema>
export type TwitchConnectorConfig = z.infer<typeof twitchConnectorSchema>
export type BilibiliConnectorConfig = z.infer<typeof bilibiliConnectorSchema>

/** Paths of the fields that hold secrets (masked as `***` wherever the config is shown). */
export const secretFieldPaths = [
  ['server', 'token'],
  ['server', 'admin_token'],
  ['server', 'clients', '*', 'token'],
  ['llm', 'api_key'],
  ['llm', 'fallbacks', '*', 'api_key'],
  ['llm', 'vision_describer', 'api_key'],
  ['llm', 'transcriber', 'api_key'],
  ['openclaw', 'token'],
  ['memory', 'embeddings', 'api_key'],
  ['storage', 'redis_url'],
  ['storage', 'postgres_url'],
  ['tools', 'mcp_servers', '*', 'env', '*'],
  ['tools', 'mcp_servers', '*', 'headers', '*'],
  ['cluster', 'shared_secret'],
  ['connectors', 'onebot', '*', 'access_token'],
  ['connectors', 'twitch', '*', 'oauth_token'],
  ['connectors', 'bilibili', '*', 'cookie'],
] as const
