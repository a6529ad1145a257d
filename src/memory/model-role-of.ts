/**
 * The role a stored message has in a model request: an `event` (an idle turn's instruction) is a
 * system note in place, as a depth injection is, so the model never reads it as someone's words.
 */
import type { MessageRole } from '../shared/messages.js'
import type { StoredMessage } from './types.js'

export function modelRoleOf(role: StoredMessage['role']): MessageRole {
  return role === 'event' ? 'system' : role
}
