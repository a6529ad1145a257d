/**
 * Whether a turn did what its `tool_choice` required. Providers that can force a call (OpenAI,
 * Anthropic) are asked to; a model behind another one, or one that answers in words anyway, leaves
 * a turn without the call. Open Responses says the model MUST call a tool under `required` (and the
 * named one when one is named), so such a turn is answered as the model's failure (`model_error`,
 * code `tool_choice_unmet`), never as a plain reply. A retry of the same model seldom mends it:
 * `x-should-retry: false`.
 */
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import type { RequiredToolChoice } from './read-tool-choice.js'
import type { TurnFailure } from './send-openai-error.js'

export interface ToolChoiceCheck {
  /** Sees each of the turn's events. */
  observe(event: CharpipeEvent): void
  /** The failure of a turn that ended without the call it required; undefined otherwise. */
  unmet(done: LlmDoneEvent): TurnFailure | undefined
}

function describeUnmet(choice: RequiredToolChoice): string {
  return choice === 'required'
    ? 'tool_choice is "required", but the model answered without calling a tool'
    : `tool_choice names the function ${choice.name}, but the model answered without calling it`
}

export function createToolChoiceCheck(choice: RequiredToolChoice | undefined): ToolChoiceCheck {
  let called = false
  return {
    observe(event) {
      if (!choice || event.type !== 'tool_call') return
      if (choice === 'required' || event.name === choice.name) called = true
    },
    unmet(done) {
      // A reply cut short (a barge-in, the session's next input) was not the model's last word.
      if (!choice || called || done.interrupted) return undefined
      return {
        code: 'tool_choice_unmet',
        errorType: 'model_error',
        param: 'tool_choice',
        final: true,
        message: describeUnmet(choice),
      }
    },
  }
}
