/**
 * Language: which language a character speaks (`character.language`, or read from its persona) and
 * the words charpipe puts around the character's own text in that language (system prompt labels
 * and format rules, the user's default name, emotion labels shown to the model, tool prompts, the
 * engine's own lines, attachment placeholders, the group chat's frame, the memory and audience
 * prompts). Plain functions over plain values, so every stage and the page can use them.
 */
export { type AttachmentTexts, readAttachmentTexts } from './attachment-texts.js'
export { type AudienceTexts, readAudienceTexts } from './audience-texts.js'
export { type ChatPlatformTexts, readChatPlatformTexts } from './chat-platform-texts.js'
export { detectTextLanguage, type Language } from './detect-text-language.js'
export { type EmotionDefaults, fillEmotionDefaults } from './emotion-defaults.js'
export {
  findEmotionByName,
  showEmotionLabel,
} from './emotion-labels.js'
export { type GroupFrameTexts, readGroupFrameTexts } from './group-frame-texts.js'
export { type MacroTexts, readMacroTexts } from './macro-texts.js'
export { type MemoryTexts, readMemoryTexts } from './memory-texts.js'
export {
  type LanguageSetting,
  type LanguageSource,
  resolveCharacterLanguage,
  resolveUserName,
} from './resolve-character-language.js'
export { readScaffoldingTexts, type ScaffoldingTexts } from './scaffolding-texts.js'
export { readSilenceTexts, type SilenceFormat, type SilenceTexts } from './silence-texts.js'
export { readThoughtTexts, type ThoughtFormat, type ThoughtTexts } from './thought-texts.js'
