/**
 * Group chat: what the other characters present in a session hear of a turn. A stage of the turn's
 * event path (turn-event-path.ts): a closing `llm_done` with words also becomes lines they heard.
 */
import { randomUUID } from 'node:crypto'
import { characterIdOf } from '../../config/character-id.js'
import type { TurnInput } from '../../context/types.js'
import { characterRuntimeOf } from '../character-runtime.js'
import type { EngineContext } from '../engine-context.js'
import { lineBudgetOf } from '../session-presence.js'
import type { TurnEventPathStage } from '../turn-event.js'
import type { TurnOutput } from './turn-output.js'

export interface ShareWithOthersPresentOptions {
  engine: EngineContext
  input: TurnInput
  /** What started the turn: only a person's input is heard by the others as said. */
  trigger: TurnOutput['trigger']
}

/**
 * Group-chat fidelity: the other characters present in the session hear this turn — the person's
 * input (an audience turn's messages they heard already; an idle turn's instruction is not said by
 * anyone) and the character's reply.
 */
export function shareWithOthersPresent(
  options: ShareWithOthersPresentOptions,
): TurnEventPathStage | undefined {
  const { engine, input, trigger } = options
  const self = input.character ?? ''
  if (!engine.presence.present(input.session).some((character) => character !== self)) return undefined
  return (next) => (event) => {
    if (event.type === 'llm_done' && event.text.trim() !== '') {
      const config = characterRuntimeOf(engine, engine.current, input.character).config
      const budget = lineBudgetOf(engine.current.config)
      const turn = randomUUID()
      if (trigger === 'input') {
        const speaker = input.speaker ?? { id: 'user', name: config.character.user_name }
        const said = { id: `${turn}:input`, speaker, text: input.spokenText ?? input.text }
        engine.presence.say(input.session, said, budget, self)
      }
      const character = { id: characterIdOf(config.character), name: config.character.name }
      engine.presence.say(input.session, { id: turn, speaker: character, text: event.text }, budget, self)
    }
    next(event)
  }
}
