/**
 * Who speaks as a character by naming it in the config: each connector (`connectors.<kind>[i]
 * .character`, by id) and each named client's profile (`server.clients[i].profile.character`, by id
 * or name). A character in use cannot be deleted or renamed out from under them, and a config whose
 * reference names no character is refused (`findCharacterReferenceErrors`), since the first chat line
 * for it would otherwise fail.
 */
import type { ConfigIssue } from '../shared/errors.js'
import type { CharacterConfig, CharpipeConfig } from './schema.js'
import { findCharacter, listCharacterIds } from './select-character-config.js'

export interface CharacterReference {
  /** The config path of the reference, e.g. `connectors.twitch.0.character`. */
  path: string
  /** Who refers, e.g. `connector "tw"`, `client "airi"`. */
  user: string
  /** The id (or, for a client profile, the id or name) it names. */
  character: string
  /** A profile may name the character by its name too. */
  byName: boolean
}

/** Every non-empty character reference of the config (an empty one means the default character). */
function listCharacterReferences(config: CharpipeConfig): CharacterReference[] {
  const references: CharacterReference[] = []
  for (const [kind, connectors] of Object.entries(config.connectors)) {
    if (!Array.isArray(connectors)) continue
    connectors.forEach((connector: { name?: unknown; character?: unknown }, index) => {
      if (typeof connector.character !== 'string' || connector.character === '') return
      references.push({
        path: `connectors.${kind}.${index}.character`,
        user: `connector "${String(connector.name)}"`,
        character: connector.character,
        byName: false,
      })
    })
  }
  config.server.clients.forEach((client, index) => {
    const character = client.profile.character
    if (character === '') return
    references.push({
      path: `server.clients.${index}.profile.character`,
      user: `client "${client.name}"`,
      character,
      byName: true,
    })
  })
  return references
}

function resolveReference(config: CharpipeConfig, reference: CharacterReference): string | undefined {
  if (findCharacter(config, reference.character)) return reference.character
  if (!reference.byName) return undefined
  return listCharacterIds(config).find((id) => findCharacter(config, id)?.name === reference.character)
}

/** The references that name the character `id` (by its id, or by its name where names count). */
function findCharacterUsers(config: CharpipeConfig, id: string): CharacterReference[] {
  return listCharacterReferences(config).filter((reference) => resolveReference(config, reference) === id)
}

/** A reference that names no character is a hard error naming the path and the known ids. */
export function findCharacterReferenceErrors(config: CharpipeConfig): ConfigIssue[] {
  return listCharacterReferences(config)
    .filter((reference) => resolveReference(config, reference) === undefined)
    .map((reference) => ({
      path: reference.path,
      message: `${reference.user} speaks as character "${reference.character}", which is not configured; known characters: ${listCharacterIds(
        config,
      )
        .map((known) => `"${known}"`)
        .join(', ')}`,
    }))
}

/** The refusal of deleting or renaming `id` while it is in use, or undefined. */
export function describeCharacterInUse(
  config: CharpipeConfig,
  id: string,
  action: 'deleted' | 'renamed',
  next?: CharacterConfig,
): string | undefined {
  let users = findCharacterUsers(config, id)
  // A rename only breaks the references by name.
  if (action === 'renamed')
    users = users.filter((user) => user.byName && user.character !== id && next?.name !== user.character)
  if (users.length === 0) return undefined
  const list = users.map((user) => `${user.user} (${user.path})`).join(', ')
  return `character "${id}" cannot be ${action}: ${list} speaks as it; point ${users.length > 1 ? 'them' : 'it'} at another character first`
}
