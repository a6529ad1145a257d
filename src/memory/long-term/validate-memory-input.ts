/** Checks of caller input, each naming the field that is wrong. */
import { BadRequestError } from '../../shared/errors.js'
import type { AddMemoryInput, MemoryRecord, MemorySearchOptions } from '../types.js'

type MemoryPatch = Partial<Pick<MemoryRecord, 'text' | 'speaker' | 'time' | 'metadata'>>

export function validateAddInput(input: AddMemoryInput): void {
  if (!input || typeof input !== 'object') throw new BadRequestError('memory add: input must be an object')
  if (typeof input.scope !== 'string') throw new BadRequestError('memory add: scope must be a string')
  validateText('memory add', input.text)
  validateOptionalFields('memory add', input)
  if (input.sourceTurn !== undefined && typeof input.sourceTurn !== 'string') {
    throw new BadRequestError('memory add: sourceTurn must be a string')
  }
}

export function validatePatch(patch: MemoryPatch): void {
  if (!patch || typeof patch !== 'object') throw new BadRequestError('memory update: patch must be an object')
  if (patch.text !== undefined) validateText('memory update', patch.text)
  validateOptionalFields('memory update', patch)
}

/** Longest memory text: a memory is a fact or a turn, and every write copies it a few times. */
export const maxMemoryTextCharacters = 65_536

function validateText(action: string, text: unknown): void {
  if (typeof text !== 'string' || !text.trim())
    throw new BadRequestError(`${action}: text must be a non-empty string`)
  if (text.length > maxMemoryTextCharacters)
    throw new BadRequestError(
      `${action}: text is ${text.length} characters, more than the ${maxMemoryTextCharacters} a memory may hold`,
    )
}

function validateOptionalFields(action: string, fields: MemoryPatch): void {
  if (fields.speaker !== undefined && typeof fields.speaker !== 'string') {
    throw new BadRequestError(`${action}: speaker must be a string`)
  }
  if (fields.time !== undefined && !(Number.isFinite(fields.time) && fields.time >= 0)) {
    throw new BadRequestError(`${action}: time must be milliseconds since the epoch`)
  }
  const metadata = fields.metadata
  if (
    metadata !== undefined &&
    (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
  ) {
    throw new BadRequestError(`${action}: metadata must be a JSON object`)
  }
}

/** The page a `list` asks for, with its defaults. */
export function validateListOptions(options: { limit?: number; offset?: number }): {
  limit: number
  offset: number
} {
  const limit = options.limit ?? 100
  const offset = options.offset ?? 0
  if (!Number.isInteger(limit) || limit < 0) throw new BadRequestError('memory list: limit must be >= 0')
  if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('memory list: offset must be >= 0')
  return { limit, offset }
}

export function validateKnowledgeDocument(document: { name: string; text: string }): void {
  if (!document || typeof document.name !== 'string' || !document.name.trim()) {
    throw new BadRequestError('knowledge: name must be a non-empty string')
  }
  if (typeof document.text !== 'string' || !document.text.trim()) {
    throw new BadRequestError(`knowledge: "${document.name}" has no text`)
  }
}

export function validateSearch(query: string, options: MemorySearchOptions): void {
  if (typeof query !== 'string') throw new BadRequestError('memory search: query must be a string')
  if (!options || typeof options.scope !== 'string') {
    throw new BadRequestError('memory search: scope must be a string')
  }
  if (!Number.isInteger(options.k) || options.k < 0) {
    throw new BadRequestError(`memory search: k must be a whole number >= 0, got ${String(options.k)}`)
  }
  const excluded = options.excludeSourceTurns
  if (
    excluded !== undefined &&
    (!Array.isArray(excluded) || excluded.some((turn) => typeof turn !== 'string'))
  ) {
    throw new BadRequestError('memory search: excludeSourceTurns must be an array of turn ids (strings)')
  }
  const budget = options.tokenBudget
  if (budget !== undefined && (typeof budget !== 'number' || !(budget >= 0))) {
    throw new BadRequestError(`memory search: tokenBudget must be a number >= 0, got ${String(budget)}`)
  }
}
