/**
 * A character's audience policy: the top-level `audience` block with the character's own fields
 * over it (weights and idle field by field).
 */
import type { AudiencePolicy, CharacterAudiencePolicy } from '../config/schema/audience.js'

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {}
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>
}

export function resolveAudiencePolicy(
  base: AudiencePolicy,
  own: CharacterAudiencePolicy | undefined,
): AudiencePolicy {
  if (!own) return base
  const { weights, idle, ...fields } = own
  return {
    ...base,
    ...definedOnly(fields),
    weights: { ...base.weights, ...definedOnly(weights) },
    idle: { ...base.idle, ...definedOnly(idle) },
  }
}
