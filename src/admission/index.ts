/** The one admission every door passes, and the doors it knows. */

export { audienceSourceOf } from './audience-source-of.js'
export type { Admission, AdmissionStats, AdmitRequest, AdmitResult, Caller } from './create-admission.js'
export { createAdmission, followsConnectorSession } from './create-admission.js'
export type { TurnBudget } from './create-minute-budget.js'
export { createRateLimitedLog, type RateLimitedLog } from './create-rate-limited-log.js'
export { type Door, doors } from './doors.js'
export { type GuardedHost, guardConnectorHost } from './guard-connector-host.js'
