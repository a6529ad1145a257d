/**
 * What a memory says of the person it came from, in its metadata: who spoke (the person id and the
 * name they used), and which stored conversation the words are in, so erasing a person finds their
 * words wherever they were kept, with or without `memory.per_person`.
 */

export interface PersonMemoryMetadata {
  /** The person id (see `parsePersonId`). */
  person: string
  /** The name the person used then, when they had one. */
  person_name?: string
  /** The memory scope's character (`''` for the default character). */
  memory_character: string
  /** The history the words are stored in. */
  history_character: string
  history_session: string
}

export function readPersonMemoryMetadata(
  metadata: Record<string, unknown> | undefined,
): PersonMemoryMetadata | undefined {
  if (!metadata || typeof metadata.person !== 'string') return undefined
  const text = (key: string) => (typeof metadata[key] === 'string' ? (metadata[key] as string) : undefined)
  const name = text('person_name')
  return {
    person: metadata.person,
    ...(name ? { person_name: name } : {}),
    memory_character: text('memory_character') ?? '',
    history_character: text('history_character') ?? '',
    history_session: text('history_session') ?? '',
  }
}
