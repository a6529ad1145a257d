/**
 * Checks that need more than the field types: provider names against the registry, lorebook
 * patterns against their cost bounds, and the soft warnings of the seeds (injected dialogue shape,
 * an Anthropic key without its usual prefix).
 */
import type { ConfigIssue } from '../shared/errors.js'
import { characterIdOf } from './character-id.js'
import { findCharacterReferenceErrors } from './find-character-users.js'
import { suggestClosestName } from './find-closest-name.js'
import { compileLorebookPatterns } from './patterns/compile-lorebook-patterns.js'
import { builtinProviders, lookupProvider } from './provider-registry.js'
import type { CharpipeConfig } from './schema.js'

const builtinNames = builtinProviders.map((provider) => provider.name)

/** Hard problems: the config cannot be used as it is. */
export function findConfigErrors(config: CharpipeConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const checkProvider = (settings: { provider: string; base_url: string }, path: string) => {
    const info = lookupProvider(settings.provider)
    if (info.apiType !== 'mock' && !settings.base_url && !info.defaultBaseUrl) {
      issues.push({
        path: `${path}.base_url`,
        message: info.builtin
          ? `provider "${settings.provider}" needs a base_url`
          : `provider "${settings.provider}" is not in the registry${suggestClosestName(settings.provider, builtinNames)}, so it is treated as OpenAI-compatible and needs a base_url`,
      })
    }
    if (settings.base_url && !/^https?:\/\//i.test(settings.base_url)) {
      issues.push({ path: `${path}.base_url`, message: `must be an http(s) URL, got "${settings.base_url}"` })
    }
  }
  checkProvider(config.llm, 'llm')
  for (const [index, fallback] of config.llm.fallbacks.entries())
    checkProvider(fallback, `llm.fallbacks.${index}`)
  if (config.memory.embeddings) checkProvider(config.memory.embeddings, 'memory.embeddings')
  const checkEmotion = (character: CharpipeConfig['character'], path: string) => {
    if (character.emotions.includes(character.default_emotion)) return
    issues.push({
      path: `${path}.default_emotion`,
      message: `"${character.default_emotion}" is not one of ${path}.emotions (${character.emotions.join(', ')})`,
    })
  }
  // A lorebook's patterns come from cards and other people's files: each within its cost bound.
  const checkPatterns = (character: CharpipeConfig['character'], path: string) => {
    for (const issue of compileLorebookPatterns(character.lorebook).issues)
      issues.push({ path: `${path}.lorebook.${issue.path}`, message: issue.message })
  }
  checkEmotion(config.character, 'character')
  checkPatterns(config.character, 'character')
  const defaultId = characterIdOf(config.character)
  for (const [id, character] of Object.entries(config.characters)) {
    checkEmotion(character, `characters.${id}`)
    checkPatterns(character, `characters.${id}`)
    if (character.id && character.id !== id) {
      issues.push({
        path: `characters.${id}.id`,
        message: `an entry of characters is kept under its key ("${id}"); leave id empty or make it "${id}"`,
      })
    }
    if (id === defaultId) {
      issues.push({
        path: `characters.${id}`,
        message: `"${id}" is the id of the default character (character); give one of them another id`,
      })
    }
  }
  // A connector or a client profile naming no character would fail at its first message.
  issues.push(...findCharacterReferenceErrors(config))
  const reset = config.history.reset
  if (reset.policy === 'turns' && reset.max_turns <= 0) {
    issues.push({ path: 'history.reset.max_turns', message: 'policy "turns" needs max_turns greater than 0' })
  }
  if (reset.policy === 'tokens' && reset.max_tokens <= 0) {
    issues.push({
      path: 'history.reset.max_tokens',
      message: 'policy "tokens" needs max_tokens greater than 0',
    })
  }
  if (config.history.store === 'redis' && !config.storage.redis_url) {
    issues.push({ path: 'storage.redis_url', message: 'history.store is redis but no redis_url is set' })
  }
  if (config.history.store === 'postgres' && !config.storage.postgres_url) {
    issues.push({
      path: 'storage.postgres_url',
      message: 'history.store is postgres but no postgres_url is set',
    })
  }
  if (config.memory.enabled && config.memory.store === 'postgres' && !config.storage.postgres_url) {
    issues.push({
      path: 'storage.postgres_url',
      message: 'memory.store is postgres but no postgres_url is set',
    })
  }
  return issues
}

/** Soft problems: logged as WARNING, the config still loads (seed 000). */
export function findConfigWarnings(config: CharpipeConfig): ConfigIssue[] {
  const warnings: ConfigIssue[] = []
  const injected = config.character.injected_history
  if (injected.length % 2 !== 0) {
    warnings.push({
      path: 'character.injected_history',
      message: `has ${injected.length} entries; an even count of user/assistant pairs is expected`,
    })
  }
  const firstOutOfTurn = injected.findIndex(
    (message, index) => message.role !== (index % 2 === 0 ? 'user' : 'assistant'),
  )
  if (firstOutOfTurn >= 0) {
    warnings.push({
      path: `character.injected_history.${firstOutOfTurn}.role`,
      message: `roles should alternate user, assistant, …; entry ${firstOutOfTurn} is "${injected[firstOutOfTurn]?.role}"`,
    })
  }
  const anthropicKeys: [string, string][] = [
    ['llm.api_key', config.llm.provider === 'anthropic' ? config.llm.api_key : ''],
  ]
  config.llm.fallbacks.forEach((fallback, index) => {
    if (fallback.provider === 'anthropic')
      anthropicKeys.push([`llm.fallbacks.${index}.api_key`, fallback.api_key])
  })
  for (const [path, key] of anthropicKeys) {
    if (key && !key.startsWith('sk-ant-')) {
      warnings.push({
        path,
        message: 'an Anthropic key usually starts with "sk-ant-" (fine if this is a proxy key)',
      })
    }
  }
  return warnings
}
