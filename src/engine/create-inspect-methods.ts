/**
 * The inspect group of `Charpipe`: read-only views of the engine for the admin API, the page and
 * `/metrics`: the context a turn would send (`preview`), the characters, the context processors,
 * the tools and the counts of tool calls. The count of early transcripts (`inspect.preflight`) is
 * added by create-charpipe.ts, which holds the prepared turns.
 */
import { listCharacterIds } from '../config/select-character-config.js'
import { createInMemoryHistoryStore } from '../memory/history/in-memory-history-store.js'
import { characterRuntimeOf, resolveCharacter } from './character-runtime.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineContext } from './engine-context.js'
import { createPipelineServices } from './engine-runtime.js'
import { previewGreeting } from './open-session.js'
import { inputLanguageOf, renderGroupInput } from './render-group-input.js'
import type { CharpipeInspect, GenerateInput } from './types.js'
import { validateGenerateInput } from './validate-generate-input.js'

/** The context that would be sent for `input`: the turn's own path up to the model call. */
async function previewTurn(context: EngineContext, input: GenerateInput) {
  const config = context.state.current.config
  const validated = validateGenerateInput(input, {
    maxInputChars: config.conversation.max_input_chars,
  })
  resolveCharacter(context, validated)
  const heard = context.presence.peek(validated.session, validated.character ?? '')
  const turnInput = renderGroupInput(
    validated,
    heard,
    config.conversation.group,
    inputLanguageOf(config, validated),
  )
  const runtime = characterRuntimeOf(context, context.state.current, turnInput.character)
  const services = createPipelineServices(runtime, context.logger, context.clock)
  // A new session's first turn follows its greeting: the preview shows it there too.
  const greeting = await previewGreeting({
    runtime,
    session: turnInput.session,
    opened: context.opened,
    random: context.random,
  })
  if (greeting) {
    services.history = createInMemoryHistoryStore()
    const scope = conversationScopeOf(runtime, turnInput.session)
    await services.history.appendTurn(scope, { turn: 'greeting-preview', assistant: greeting })
  }
  return context.pipeline.preview({
    input: turnInput,
    config: runtime.config,
    capabilities: runtime.capabilities,
    services,
  })
}

export function createInspectMethods(context: EngineContext): Omit<CharpipeInspect, 'preflight'> {
  return {
    preview: (input) => previewTurn(context, input),
    characters: () => listCharacterIds(context.state.current.config),
    processors: () => context.pipeline.listProcessors(context.state.current.config),
    tools: () => ({
      tools: context.registry.list().map((tool) => {
        const server = context.state.mcp?.serverOf(tool.name)
        return { name: tool.name, description: tool.description ?? '', ...(server ? { server } : {}) }
      }),
      servers: context.state.mcp?.servers() ?? [],
    }),
    toolCalls: () => context.state.mcp?.callStats() ?? [],
  }
}
