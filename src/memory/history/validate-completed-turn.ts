/**
 * Checks a turn before a persistent store writes it, so malformed input fails with a message naming
 * the field instead of storing half a turn or a row that cannot be read back.
 */
import { BadRequestError } from '../../shared/errors.js'
import type { CompletedTurn, ConversationScope, StoredMessage } from '../types.js'

export function validateScope(scope: ConversationScope): void {
  for (const field of ['character', 'session'] as const) {
    const value = scope?.[field]
    if (typeof value !== 'string' || value.length === 0) {
      throw new BadRequestError(`history scope: ${field} must be a non-empty string`)
    }
  }
}

function validateMessage(
  message: StoredMessage | undefined,
  roles: readonly StoredMessage['role'][],
  where: string,
) {
  if (!message || typeof message !== 'object') throw new BadRequestError(`${where}: missing message`)
  if (!roles.includes(message.role))
    throw new BadRequestError(`${where}.role must be ${roles.map((role) => `'${role}'`).join(' or ')}`)
  if (typeof message.content !== 'string') throw new BadRequestError(`${where}.content must be a string`)
  if (typeof message.createdAt !== 'number' || !Number.isFinite(message.createdAt)) {
    throw new BadRequestError(`${where}.createdAt must be milliseconds since the epoch`)
  }
  if (message.emotion !== undefined && typeof message.emotion !== 'string') {
    throw new BadRequestError(`${where}.emotion must be a string`)
  }
  if (message.interrupted !== undefined && typeof message.interrupted !== 'boolean') {
    throw new BadRequestError(`${where}.interrupted must be a boolean`)
  }
  if (message.failed !== undefined && typeof message.failed !== 'boolean') {
    throw new BadRequestError(`${where}.failed must be a boolean`)
  }
  if (message.thought !== undefined && typeof message.thought !== 'string') {
    throw new BadRequestError(`${where}.thought must be a string`)
  }
  const attachments = message.attachments
  if (
    attachments !== undefined &&
    !(Array.isArray(attachments) && attachments.every((item) => typeof item === 'string'))
  ) {
    throw new BadRequestError(`${where}.attachments must be an array of strings`)
  }
}

export function validateCompletedTurn(scope: ConversationScope, turn: CompletedTurn): void {
  validateScope(scope)
  if (!turn || typeof turn.turn !== 'string' || turn.turn.length === 0) {
    throw new BadRequestError('turn.turn must be a non-empty string (the turn id)')
  }
  if (turn.user === undefined && turn.assistant === undefined) {
    throw new BadRequestError('turn: a turn needs a user message, an assistant message or both')
  }
  if (turn.user !== undefined) validateMessage(turn.user, ['user', 'event'], 'turn.user')
  if (turn.assistant !== undefined) validateMessage(turn.assistant, ['assistant'], 'turn.assistant')
}

/** `maxTurns` for `loadRecent`: a whole number; zero or less loads nothing. */
export function validateMaxTurns(maxTurns: number): void {
  if (typeof maxTurns !== 'number' || !Number.isInteger(maxTurns)) {
    throw new BadRequestError(`loadRecent: maxTurns must be a whole number, got ${String(maxTurns)}`)
  }
}
