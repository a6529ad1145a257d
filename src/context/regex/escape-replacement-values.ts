/**
 * Macro values for a regex replacement. A value is text (the user's last message, a name), not
 * template: its `$` must not be read as `$&` or `$1` when the template is filled, so a user cannot
 * turn their own message into a template that copies the rest of the text.
 */
import type { MacroValues } from '../macros/expand-macros.js'

function escapeDollars(text: string): string {
  return text.includes('$') ? text.replaceAll('$', '$$$$') : text
}

export function escapeReplacementValues(values: MacroValues): MacroValues {
  return {
    ...values,
    char: escapeDollars(values.char),
    user: escapeDollars(values.user),
    lastUserMessage: escapeDollars(values.lastUserMessage),
  }
}
