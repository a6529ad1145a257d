/** Per-person memory: person ids, where a person's memories are kept, and the people directory. */
export {
  checkPersonId,
  createPeopleDirectory,
  type PeopleDirectory,
  type PeopleDirectoryOptions,
} from './create-people-directory.js'
export { type ErasePersonResult, erasedWordsMarker } from './erase-person.js'
export type { PersonSummary } from './list-people.js'
export {
  formatPersonId,
  type ParsePersonIdResult,
  type PersonId,
  type PersonSource,
  parsePersonId,
} from './parse-person-id.js'
export { type PersonOfTurnOptions, personOfTurn } from './person-of-turn.js'
export { type PersonScopeInput, personScopeOf } from './person-scope-of.js'
