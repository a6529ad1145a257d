/**
 * What preflight has done so far, as `Charpipe.preflightStats` reports it and `/metrics` shows it:
 * counts only, so the public types and the server read them without the slots that keep them
 * (create-preflight-slots.ts).
 */

/** Why a prepared turn went unused. */
export type PreflightDropReason = 'changed' | 'replaced' | 'expired' | 'failed' | 'interrupted'
/** Why an early transcript started nothing. */
export type PreflightIgnoreReason = 'disabled' | 'busy' | 'interval' | 'restarts'

export interface PreflightStats {
  started: number
  adopted: number
  dropped: Record<PreflightDropReason, number>
  ignored: Record<PreflightIgnoreReason, number>
  /** Model requests sent by prepared turns that were never adopted. */
  wastedRequests: number
  /** Tokens those requests reported (an aborted stream usually reports none). */
  wastedTokens: { prompt: number; completion: number }
}
