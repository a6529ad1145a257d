/**
 * Language: which language a character speaks (`character.language`, or read from its persona) and
 * the words charpipe puts around the character's own text in that language (system prompt labels
 * and format rules, the user's default name, emotion labels shown to the model, tool prompts, the
 * engine's own lines). Plain functions over plain values, so every stage and the page can use them.
 */
export { detectTextLanguage, type Language } from './detect-text-language.js'
export {
  emotionNames,
  findEmotionByName,
  showEmotionLabel,
  translateEmotionLabel,
} from './emotion-labels.js'
export {
  fallbackLanguage,
  type LanguageSetting,
  type LanguageSource,
  resolveCharacterLanguage,
  resolveUserName,
} from './resolve-character-language.js'
export { readScaffoldingTexts, type ScaffoldingTexts } from './scaffolding-texts.js'
