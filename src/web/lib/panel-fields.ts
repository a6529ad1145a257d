/**
 * The config fields the settings panels show, in order. Kept apart from the panels so a test can
 * check that every one of them has its label and Chinese description (`field-texts.ts`).
 */

/** Character panel, besides the injected dialogue editor. */
export const characterFields = [
  'name',
  'language',
  'user_name',
  'persona',
  'scenario',
  'greeting',
  'alternate_greetings',
  'avatar',
  'reply_format',
  'default_emotion',
  'emotions',
  'inline_emotion_tags',
  'emotion_aliases',
  'user_emotion_map',
]

/** Provider panel: the `llm.*` fields after provider, model, base_url and api_key. */
export const llmFields = [
  'temperature',
  'max_tokens',
  'context_window',
  'timeout_ms',
  'stall_timeout_ms',
  'max_retries',
  'function_calling',
  'vision',
  'max_tool_steps',
]

/** Provider panel, the OpenClaw gateway block. */
export const openclawFields = ['url', 'token', 'session_key', 'agent_id', 'timeout_ms']

/** Every field path the settings panels show (list rows as `*`). */
export const shownFieldPaths: readonly string[] = [
  ...characterFields.map((key) => `character.${key}`),
  'character.injected_history',
  'character.injected_history.*.role',
  'character.injected_history.*.content',
  'llm.provider',
  'llm.model',
  'llm.base_url',
  'llm.api_key',
  ...llmFields.map((key) => `llm.${key}`),
  'llm.fallbacks',
  'llm.fallbacks.*.provider',
  'llm.fallbacks.*.model',
  'llm.fallbacks.*.base_url',
  'llm.fallbacks.*.api_key',
  ...openclawFields.map((key) => `openclaw.${key}`),
]
