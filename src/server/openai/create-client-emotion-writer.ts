/**
 * The emotion writer of one reply to a client: its profile's dialect and names, starting from the
 * answering character's `default_emotion` (the emotion until the model gives one).
 */
import type { CharpipeConfig } from '../../config/schema.js'
import { findCharacter } from '../../config/select-character-config.js'
import { createEmotionDialectWriter, type EmotionDialectWriter } from './create-emotion-dialect-writer.js'
import type { ClientProfile } from './plan-profile-turn.js'

export function createClientEmotionWriter(
  config: CharpipeConfig,
  profile: ClientProfile,
  /** The engine's character id; undefined for the default character. */
  character: string | undefined,
): EmotionDialectWriter {
  return createEmotionDialectWriter({
    dialect: profile.emotion,
    emotionNames: profile.emotion_names,
    defaultEmotion: (findCharacter(config, character) ?? config.character).default_emotion,
  })
}
