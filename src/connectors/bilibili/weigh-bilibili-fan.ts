/**
 * What a Bilibili sender's standing adds over the audience weights: this room's fan medal a bonus
 * of `medal_weight + level × medal_level_weight` (reason `medal`); a plain viewer's danmaku below
 * `min_user_level` observed but not answered. A gift or super chat is answered whatever the level,
 * and so are the streamer, the room admins and the guards.
 */
import type { AudienceStanding } from '../../audience/types.js'
import type { BilibiliConnectorConfig } from '../../config/schema.js'
import type { BilibiliCommandResult } from './convert-bilibili-command.js'

export function weighBilibiliFan(
  result: Extract<BilibiliCommandResult, { kind: 'message' }>,
  config: Pick<BilibiliConnectorConfig, 'medal_weight' | 'medal_level_weight' | 'min_user_level'>,
): AudienceStanding | undefined {
  const { fan } = result
  if (
    result.from === 'danmaku' &&
    (result.message.speaker.role ?? 'viewer') === 'viewer' &&
    config.min_user_level > 0 &&
    fan.userLevel !== undefined &&
    fan.userLevel < config.min_user_level
  )
    return { answer: false }
  if (fan.medalLevel <= 0) return undefined
  const bonus = config.medal_weight + config.medal_level_weight * fan.medalLevel
  return bonus > 0 ? { bonus, reason: 'medal' } : undefined
}
