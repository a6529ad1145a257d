/**
 * The words charpipe itself puts around a character's own text, per language: the system prompt's
 * opening, section labels and format rules, the user's default name, the tool prompt, and the lines
 * the engine adds to a turn. The Chinese texts are the ones charpipe always sent.
 */
import type { Language } from './detect-text-language.js'

export interface ScaffoldingTexts {
  /** `{{user}}` when `character.user_name` is empty. */
  userName: string
  /** The system prompt's first line; `{{char}}` and `{{user}}` are expanded later. */
  characterIntro: string
  personaLabel: string
  scenarioLabel: string
  /** Between emotion labels in a list. */
  listSeparator: string
  jsonFormat: (emotions: string) => string[]
  prefixFormat: (emotions: string) => string[]
  inlineTags: (example: string, emotions: string) => string
  memoryHeader: string
  knowledgeHeader: string
  /** The recognised tone of the user's voice, appended to the input. */
  userTone: (tone: string) => string
  /** The first user message when a conversation must start with one (Anthropic). */
  conversationStart: string
  toolPrompt: {
    title: string
    parameters: string
    callFormat: string[]
  }
  /** Asks the model to call a tool (any, or the named one) in this step. */
  mustCallTool: (name: string | undefined) => string
  toolResult: (name: string) => string
  /** After the last round of tools: the model has to answer in words. */
  toolRoundsUsedUp: string
}

const zh: ScaffoldingTexts = {
  userName: '用户',
  characterIntro: '你是{{char}}，正在和{{user}}对话。',
  personaLabel: '【人设】',
  scenarioLabel: '【场景】',
  listSeparator: '、',
  jsonFormat: (emotions) => [
    '【输出格式】只输出一个 JSON 对象，不要输出任何其他内容（不要代码块）：',
    '{"emotion": "<情感>", "text": "<回复内容>"}',
    `emotion 必须是以下之一：${emotions}。`,
  ],
  prefixFormat: (emotions) => [
    '【输出格式】第一行只写一个 JSON 对象标明情感，然后换行直接写回复内容：',
    '{"emotion": "<情感>"}',
    '<回复内容>',
    `emotion 必须是以下之一：${emotions}。`,
  ],
  inlineTags: (example, emotions) =>
    `情感变化时，可以在句子前插入情感标签，如 [${example}]，标签只能用：${emotions}。`,
  memoryHeader: '【相关记忆】',
  knowledgeHeader: '【相关资料】',
  userTone: (tone) => `[用户语气：${tone}]`,
  conversationStart: '（对话开始）',
  toolPrompt: {
    title: '## 可用工具',
    parameters: '参数 (JSON Schema)',
    callFormat: [
      '需要调用工具时，整条回复只输出下面格式的 JSON，不要输出其他任何文字：',
      '{"tool_call": {"name": "<工具名>", "arguments": {<参数>}}}',
      '工具结果会以用户消息的形式返回给你，然后再用平常的格式回答。不需要工具时照常回答。',
    ],
  },
  mustCallTool: (name) => `这一步必须调用${name === undefined ? '一个工具' : `工具 ${name}`}，不要直接回答。`,
  toolResult: (name) => `[工具结果 ${name}]`,
  toolRoundsUsedUp: '工具调用次数已用完，请直接回答。',
}

const en: ScaffoldingTexts = {
  userName: 'User',
  characterIntro: 'You are {{char}}, talking with {{user}}.',
  personaLabel: '[Persona]',
  scenarioLabel: '[Scenario]',
  listSeparator: ', ',
  jsonFormat: (emotions) => [
    '[Output format] Output one JSON object and nothing else (no code block):',
    '{"emotion": "<emotion>", "text": "<reply>"}',
    `emotion must be one of: ${emotions}.`,
  ],
  prefixFormat: (emotions) => [
    '[Output format] On the first line, write only a JSON object naming the emotion; then write the reply on the next line:',
    '{"emotion": "<emotion>"}',
    '<reply>',
    `emotion must be one of: ${emotions}.`,
  ],
  inlineTags: (example, emotions) =>
    `When the emotion changes, you may put an emotion tag before a sentence, such as [${example}]; tags can only be: ${emotions}.`,
  memoryHeader: '[Relevant memories]',
  knowledgeHeader: '[Reference material]',
  userTone: (tone) => `[User tone: ${tone}]`,
  conversationStart: '(The conversation begins.)',
  toolPrompt: {
    title: '## Available tools',
    parameters: 'Parameters (JSON Schema)',
    callFormat: [
      'To call a tool, make your whole reply only JSON in the format below, with no other text:',
      '{"tool_call": {"name": "<tool name>", "arguments": {<arguments>}}}',
      'The tool result comes back to you as a user message; then answer in your usual format. When you need no tool, answer as usual.',
    ],
  },
  mustCallTool: (name) =>
    `In this step you must call ${name === undefined ? 'a tool' : `the tool ${name}`}; do not answer directly.`,
  toolResult: (name) => `[Tool result ${name}]`,
  toolRoundsUsedUp: 'No tool calls are left: answer directly now.',
}

const textsByLanguage: Record<Language, ScaffoldingTexts> = { zh, en }

export function readScaffoldingTexts(language: Language): ScaffoldingTexts {
  return textsByLanguage[language]
}
