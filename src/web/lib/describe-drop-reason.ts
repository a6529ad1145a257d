/**
 * Why the audience selector dropped a message (`reason` of the queue's dropped entries, the reasons of
 * `audience_dropped`), in the page's language. A reason the server adds later is shown by its code.
 */
import { translate } from './i18n.js'
import type { MessageKey } from './page-messages.js'

const dropReasonTexts: Record<string, MessageKey> = {
  queue_full: 'audience.reason.queue_full',
  too_old: 'audience.reason.too_old',
  duplicate: 'audience.reason.duplicate',
  blocked: 'audience.reason.blocked',
  moderated: 'audience.reason.moderated',
  speaker_rate: 'audience.reason.speaker_rate',
  loop_guard: 'audience.reason.loop_guard',
}

export function describeDropReason(reason: string): string {
  // Own keys only: a reason named like an Object method is still an unknown one.
  return Object.hasOwn(dropReasonTexts, reason) ? translate(dropReasonTexts[reason] as MessageKey) : reason
}
