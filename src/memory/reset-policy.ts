/**
 * History reset policies (seed 004): after each turn the engine asks whether the current context has
 * grown past its limit, and if so calls `store.resetContext(scope)` so later turns start fresh while
 * the stored messages stay listed.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import { estimateTokens } from '../shared/estimate-tokens.js'
import type { StoredMessage } from './types.js'

export interface HistoryResetState {
  /** Turns in the current context (`store.countTurns`). */
  turns: number
  /** Messages of the current context (needed by the `tokens` policy only). */
  messages: StoredMessage[]
}

export interface HistoryResetPolicy {
  readonly policy: CharpipeConfig['history']['reset']['policy']
  /** Whether the context should be reset now. */
  shouldReset(state: HistoryResetState): boolean
}

export type HistoryResetConfig = CharpipeConfig['history']['reset']

/** Tokens a chat message costs beyond its text (role and separators). */
export const messageOverheadTokens = 4

/**
 * Builds the policy named by `history.reset`.
 * @param countTokens Tokens of a text for the model in use; by default an estimate that errs high.
 * @example createHistoryResetPolicy({ policy: 'turns', max_turns: 20, max_tokens: 0 })
 */
export function createHistoryResetPolicy(
  reset: HistoryResetConfig,
  countTokens: (text: string) => number = estimateTokens,
): HistoryResetPolicy {
  switch (reset.policy) {
    case 'none':
      return { policy: 'none', shouldReset: () => false }
    case 'turns': {
      requirePositive(reset.max_turns, 'max_turns', 'turns')
      return { policy: 'turns', shouldReset: (state) => state.turns >= reset.max_turns }
    }
    case 'tokens': {
      requirePositive(reset.max_tokens, 'max_tokens', 'tokens')
      return {
        policy: 'tokens',
        shouldReset(state) {
          let tokens = 0
          for (const message of state.messages) {
            tokens += countTokens(message.content) + messageOverheadTokens
            if (tokens >= reset.max_tokens) return true
          }
          return false
        },
      }
    }
    default:
      throw new InvalidConfigError([
        {
          path: 'history.reset.policy',
          message: `unknown policy ${JSON.stringify(reset.policy)}; use none, turns or tokens`,
        },
      ])
  }
}

function requirePositive(value: number, field: 'max_turns' | 'max_tokens', policy: string) {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidConfigError([
      {
        path: `history.reset.${field}`,
        message: `policy ${policy} needs ${field} greater than 0 (got ${value})`,
      },
    ])
  }
}
