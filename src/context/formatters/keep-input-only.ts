/**
 * openclaw-input (510): an OpenClaw gateway keeps its own agent, persona and session history, so
 * it is sent only the user's input. On for apiType `openclaw`.
 */
import type { ContextProcessor } from '../types.js'

export const keepInputOnly: ContextProcessor = {
  id: 'openclaw-input',
  name: 'OpenClaw 仅输入',
  description: 'For the OpenClaw gateway (which keeps its own context): sends only the user input.',
  priority: 510,
  defaultEnabled: true,
  // No options of its own besides enabled and priority.
  configFields: [],
  execute(context) {
    if (context.capabilities.apiType !== 'openclaw') return
    const input = context.messages.filter((message) => message.source === 'input')
    context.messages = input
  },
}
