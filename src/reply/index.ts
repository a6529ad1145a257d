/** `charpipe/reply`: the reply parser (emotion JSON or tags, display rules, sentences) on its own. */
export { createReplyParser } from './create-reply-parser.js'
export { parseReplyStream } from './parse-reply-stream.js'
export { replyParserOptionsFromConfig } from './reply-parser-options-from-config.js'
export type { ReplyEvent, ReplyParser, ReplyParserOptions } from './types.js'
