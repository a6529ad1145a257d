import type { CharpipeConfig } from '../config/schema.js'
import type { ReplyParserOptions } from './types.js'

/**
 * Maps `character.*` and `sentence.*` of config.yaml to reply parser options.
 * @param log receives the parser's fallbacks and unknown labels; default: the `reply` logger.
 */
export function replyParserOptionsFromConfig(
  config: CharpipeConfig,
  log?: ReplyParserOptions['log'],
): ReplyParserOptions {
  const { character, sentence } = config
  return {
    replyFormat: character.reply_format,
    defaultEmotion: character.default_emotion,
    emotions: [...character.emotions],
    emotionAliases: { ...character.emotion_aliases },
    inlineEmotionTags: character.inline_emotion_tags,
    thoughts: character.thoughts,
    minChars: sentence.min_chars,
    maxChars: sentence.max_chars,
    firstClauseChars: sentence.first_clause_chars,
    earlyRelease: sentence.early_release,
    speechFilters: [...sentence.speech_filters],
    ...(log ? { log } : {}),
  }
}
