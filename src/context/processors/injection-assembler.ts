/**
 * injection-assembler (300): puts the context in its order (SPEC R3.3, seed 000):
 * `[system, ...injected_history, ...recent_history, user_input]`, where the system prompt is the
 * name, persona, scenario and reply-format instructions with retrieved memories (and knowledge) at
 * its end. Anchors go before/after the persona and the history; depth injections sit inside the
 * history, counted from its end. Lorebook entries the lorebook processor chose go right before or
 * after the system prompt, or at their depth like depth injections. Macros are expanded in everything the assembler writes (not in what the
 * user or the history says).
 *
 * `memory_position: before_input` moves the memories (which change every turn) out of the system
 * prompt to a system message right before the input, so the persona, the example dialogue and the
 * history form a prefix that stays the same from turn to turn and provider prompt caches hit.
 */

import type { LorebookEntryConfig } from '../../config/schema.js'
import type { MemoryHit } from '../../memory/types.js'
import { readScaffoldingTexts, resolveCharacterLanguage } from '../../shared/language/index.js'
import type { ChatMessage, MessageSource } from '../../shared/messages.js'
import { buildReplyFormatInstructions, buildSystemPrompt } from '../assembler/build-system-prompt.js'
import { formatKnowledge, formatMemories } from '../assembler/format-memories.js'
import {
  type AnchorPosition,
  checkInjections,
  type InjectionRole,
  readAnchors,
  readDepthInjections,
} from '../assembler/read-injections.js'
import { createMacroValues } from '../macros/create-macro-values.js'
import {
  createMacroBudget,
  defaultMacroBudgetChars,
  expandMacros,
  macroOutputBudgetChars,
} from '../macros/expand-macros.js'
import type { ContextProcessor } from '../types.js'
import { lorebookEntriesKey } from './lorebook.js'
import { memoryHitsKey } from './memory-retriever.js'
import { checkType, readString } from './read-settings.js'

const memoryPositions = new Set(['system_prompt', 'before_input'])

export const injectionAssembler: ContextProcessor = {
  id: 'injection-assembler',
  name: '注入组装器',
  description:
    'System prompt (name, persona, reply format, memories), example dialogue, depth and anchor injections, macros.',
  priority: 300,
  isCore: true,
  defaultEnabled: true,
  configFields: [
    {
      key: 'system_prompt',
      label: 'System prompt template',
      type: 'textarea',
      default: '',
      description:
        'Replaces the name, persona and scenario part of the system prompt ({{original}} puts it back where it stands); macros such as {{char}} work.',
    },
    {
      key: 'depth_injections',
      label: 'Depth injections',
      type: 'json',
      default: [],
      description:
        'List of {content, role: system|user|assistant, depth} (0 = after the newest history message).',
    },
    {
      key: 'anchors',
      label: 'Anchors',
      type: 'json',
      default: [],
      description:
        'List of {position: before_persona|after_persona|before_history|after_history, role, content}.',
    },
    {
      key: 'memory_position',
      label: 'Memories and knowledge go',
      type: 'select',
      default: 'system_prompt',
      options: [
        { label: 'at the end of the system prompt', value: 'system_prompt' },
        { label: 'right before the input (cache-friendly)', value: 'before_input' },
      ],
      description:
        'before_input keeps the system prompt and history the same from turn to turn, so provider prompt caches hit.',
    },
    {
      key: 'memory_header',
      label: 'Memory header',
      type: 'text',
      default: '',
      placeholder: '【相关记忆】',
      description: "Empty: the character language's (【相关记忆】, [Relevant memories]).",
    },
    {
      key: 'knowledge_header',
      label: 'Knowledge header',
      type: 'text',
      default: '',
      placeholder: '【相关资料】',
      description: "Empty: the character language's (【相关资料】, [Reference material]).",
    },
    {
      key: 'time_zone',
      label: 'Time zone',
      type: 'text',
      default: '',
      placeholder: 'Asia/Shanghai',
      description: 'For {{time}}, {{date}} and {{weekday}}; empty: the server zone.',
    },
  ],
  validateSettings(settings) {
    const issues = [...checkInjections(settings)]
    for (const key of [
      'system_prompt',
      'memory_header',
      'knowledge_header',
      'time_zone',
      'memory_position',
    ]) {
      const issue = checkType(settings, key, 'string')
      if (issue) issues.push(issue)
    }
    const position = settings.memory_position
    if (typeof position === 'string' && !memoryPositions.has(position)) {
      issues.push({ path: 'memory_position', message: 'must be system_prompt or before_input' })
    }
    const timeZone = settings.time_zone
    if (typeof timeZone === 'string' && timeZone) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone })
      } catch {
        issues.push({ path: 'time_zone', message: `unknown time zone "${timeZone}"` })
      }
    }
    return issues
  },
  execute(context, settings) {
    const timeZone = readString(settings, 'time_zone', '') || undefined
    const macroValues = createMacroValues(context, { timeZone })
    const budget = createMacroBudget()
    const expand = (text: string) => expandMacros(text, macroValues, budget)
    const make = (role: InjectionRole, content: string, source: MessageSource): ChatMessage => ({
      role,
      content: expand(content),
      source,
    })
    const anchors = readAnchors(settings)
    const lore = (context.sharedData.get(lorebookEntriesKey) as LorebookEntryConfig[] | undefined) ?? []
    const loreAt = (position: LorebookEntryConfig['position']) =>
      lore
        .filter((entry) => entry.position === position)
        .map((entry) => make(entry.role, entry.content, 'lorebook'))
    const anchorsAt = (position: AnchorPosition) =>
      anchors
        .filter((anchor) => anchor.position === position)
        .map((anchor) => make(anchor.role, anchor.content, 'anchor'))

    const history: ChatMessage[] = []
    const inputs: ChatMessage[] = []
    const others: ChatMessage[] = []
    for (const message of context.messages) {
      if (message.source === 'history') history.push(message)
      else if (message.source === 'input') inputs.push(message)
      else others.push(message)
    }

    const hits = (context.sharedData.get(memoryHitsKey) as MemoryHit[] | undefined) ?? []
    const texts = readScaffoldingTexts(resolveCharacterLanguage(context.character))
    const memoryText = formatMemories(hits, readString(settings, 'memory_header', '') || texts.memoryHeader)
    const knowledgeText = formatKnowledge(
      hits,
      readString(settings, 'knowledge_header', '') || texts.knowledgeHeader,
    )
    // A client that sends its own system prompt keeps it, word for word; the character adds the
    // reply format (for emotion parsing), its lorebook and memories.
    const clientSystem = context.input.clientPrompt?.system
    const systemMessage: ChatMessage = clientSystem
      ? {
          role: 'system',
          content: [clientSystem, buildReplyFormatInstructions(context.character)]
            .filter(Boolean)
            .join('\n\n'),
          source: 'system',
        }
      : make(
          'system',
          buildSystemPrompt(context.character, readString(settings, 'system_prompt', '')),
          'system',
        )
    const exampleDialogue = clientSystem ? [] : context.character.injected_history

    const depthInjections = [
      ...readDepthInjections(settings).map((injection) => ({
        ...injection,
        source: 'depth-injection' as const,
      })),
      ...lore
        .filter((entry) => entry.position === 'depth')
        .map((entry) => ({ ...entry, source: 'lorebook' as const })),
    ].sort((a, b) => b.depth - a.depth) // at one place in a short history, the deeper one first
    const historyWithDepth: ChatMessage[] = []
    for (let index = 0; index <= history.length; index++) {
      for (const injection of depthInjections) {
        if (Math.max(0, history.length - injection.depth) === index)
          historyWithDepth.push(make(injection.role, injection.content, injection.source))
      }
      if (index < history.length) historyWithDepth.push(history[index]!)
    }

    // Memories are past words of the conversation: quoted as they are, macros not expanded.
    const retrieved: ChatMessage[] = [
      ...(memoryText ? [{ role: 'system' as const, content: memoryText, source: 'memory' as const }] : []),
      ...(knowledgeText
        ? [{ role: 'system' as const, content: knowledgeText, source: 'knowledge' as const }]
        : []),
    ]
    const beforeInput = readString(settings, 'memory_position', 'system_prompt') === 'before_input'

    context.messages = [
      ...anchorsAt('before_persona'),
      ...loreAt('before_char'),
      systemMessage,
      ...loreAt('after_char'),
      ...anchorsAt('after_persona'),
      ...(beforeInput ? [] : retrieved),
      ...exampleDialogue.map((entry) => make(entry.role, entry.content, 'injected')),
      ...others,
      ...anchorsAt('before_history'),
      ...historyWithDepth,
      ...anchorsAt('after_history'),
      ...(beforeInput ? retrieved : []),
      ...inputs,
    ]
    const messages = [
      ...(budget.reached.user
        ? [
            `{{lastUserMessage}} inserted more than ${defaultMacroBudgetChars} characters; the rest expanded to nothing`,
          ]
        : []),
      ...(budget.reached.output
        ? [
            `macros inserted more than ${macroOutputBudgetChars} characters (macroOutputBudgetChars); the rest expanded to nothing`,
          ]
        : []),
    ]
    for (const message of messages) {
      context.logs.push({ processorId: 'injection-assembler', level: 'warn', message })
      context.services.logger.warn({ processor: 'injection-assembler' }, message)
    }
  },
}
