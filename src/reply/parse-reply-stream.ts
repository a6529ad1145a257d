import { createReplyParser } from './create-reply-parser.js'
import type { ReplyEvent, ReplyParserOptions } from './types.js'

/**
 * Parses a stream of model text deltas into reply events; `done` is the last event. Leaving the
 * loop early stops reading `deltas` (its `return` is called), which cancels the upstream request.
 * @example
 * for await (const event of parseReplyStream(textDeltas, { replyFormat: 'json' })) {
 *   if (event.type === 'sentence') tts.speak(event.text, event.emotion)
 * }
 */
export async function* parseReplyStream(
  deltas: AsyncIterable<string>,
  options: ReplyParserOptions = {},
): AsyncIterable<ReplyEvent> {
  const parser = createReplyParser(options)
  for await (const delta of deltas) yield* parser.push(delta)
  yield* parser.end()
}
