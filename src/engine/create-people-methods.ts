/**
 * The people group of `Charpipe`: a directory of one character's people over the memory store
 * and the history store the engine runs on now (see src/memory/people/).
 */
import { createPeopleDirectory } from '../memory/people/create-people-directory.js'
import { BadRequestError } from '../shared/errors.js'
import { resolveCharacter } from './character-runtime.js'
import type { EngineContext } from './engine-context.js'
import type { CharpipePeople } from './types.js'
import { checkCharacterField } from './validate-generate-input.js'

export function createPeopleMethods(context: EngineContext): CharpipePeople {
  return {
    of(input = {}) {
      const { character } = resolveCharacter(context, { character: checkCharacterField(input.character) })
      const memoryStore = context.state.current.memoryStore
      if (!memoryStore) throw new BadRequestError('long-term memory is disabled (memory.enabled: false)')
      return createPeopleDirectory({
        memoryStore,
        historyStore: context.state.current.historyStore,
        character,
      })
    },
  }
}
