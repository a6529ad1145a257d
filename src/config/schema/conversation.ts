/**
 * The `conversation` section: turn taking, group chat and preflight.
 */
import * as z from 'zod'

const groupChatSchema = z
  .strictObject({
    observed_max_chars: z
      .int()
      .min(0)
      .max(1_000_000)
      .default(4000)
      .describe(
        'Characters of observed lines (said in the session without needing a reply) kept for the next input, newest first; older ones are dropped.',
      ),
    observed_max_lines: z
      .int()
      .min(0)
      .max(10_000)
      .default(50)
      .describe('Observed lines kept per session for the next input, newest first.'),
    observed_max_sessions: z
      .int()
      .min(1)
      .max(1_000_000)
      .default(10_000)
      .describe(
        'Sessions with pending observed lines; past it the session observed least recently loses its lines.',
      ),
    line_template: z
      .string()
      .max(1000)
      .default('{{name}}({{id}}): {{text}}')
      .describe('One line said by a speaker; {{name}} (the id when no name), {{id}}, {{text}}.'),
    template: z
      .string()
      .max(4000)
      .default('')
      .describe(
        "The input when observed lines are pending; {{observed}} (their lines, one a line) and {{current}} (the input as a line). Empty: the character language's ([群聊记录] … [当前消息] …, [Group chat] … [Current message] …).",
      ),
    current_template: z
      .string()
      .max(4000)
      .default('')
      .describe(
        "The input when it has a speaker and no observed lines are pending ({{current}}); empty: the character language's ([当前消息] …, [Current message] …). No speaker and none pending: the text as is.",
      ),
  })
  .describe('Group chat: speakers on inputs and lines observed in the session.')

/** What may start a turn that is allowed to end in silence. */
const silenceTriggerSchema = z.enum(['idle', 'audience', 'connector', 'input', 'event'])

const silenceSchema = z
  .strictObject({
    triggers: z
      .array(silenceTriggerSchema)
      .max(5)
      .default(['idle', 'audience', 'connector'])
      .describe(
        "Turns that may end in silence, by what started them: idle (speaking first), audience (chat messages), connector (a connector's 1:1 chat), input (a client's user_input), event. The model is told it may answer [silence] alone; such a reply sends and speaks nothing and its llm_done has silent: true. In other turns [silence] is text.",
      ),
  })
  .describe('When the character may choose to say nothing.')

export const conversationSchema = z
  .strictObject({
    on_new_input: z
      .enum(['interrupt', 'queue'])
      .default('interrupt')
      .describe('A new input while a reply runs: interrupt it, or queue behind it.'),
    max_input_chars: z
      .int()
      .min(1)
      .max(10_000_000)
      .default(32_000)
      .describe(
        'Longest text of one input, in characters; a longer one is refused with bad_request (bounds the work one turn can cost).',
      ),
    group: groupChatSchema.prefault({}),
    silence: silenceSchema.prefault({}),
    preflight: z
      .boolean()
      .default(true)
      .describe(
        'Accept user_input with preflight: true (an early transcript): the turn is prepared from it, nothing sent or stored, and adopted when the final input has the same words. false: such inputs are ignored.',
      ),
    preflight_timeout_ms: z
      .int()
      .min(100)
      .max(600_000)
      .default(5000)
      .describe('A preflight no final input has confirmed by then is dropped (its model request aborted).'),
    preflight_max_restarts: z
      .int()
      .min(0)
      .max(100)
      .default(3)
      .describe(
        'Times a newer preflight with other words may replace the prepared one before the final input; past it newer ones are ignored.',
      ),
    preflight_min_interval_ms: z
      .int()
      .min(0)
      .max(60_000)
      .default(150)
      .describe(
        'A newer preflight with other words arriving sooner than this after the prepared one started is ignored (no request per partial transcript).',
      ),
  })
  .describe('Turn taking.')
