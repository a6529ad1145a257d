/**
 * Whether a request of a client whose history the server keeps (`profile.history: server`) asks the
 * session's last question again: a regenerate. Front ends regenerate by dropping the last reply
 * from their own history and sending the same last user message again; a user who really says the
 * same thing twice sends it after the reply, which the client then has. So: the newest stored turn's
 * user message is the input, and the client's last reply is not that turn's reply. A client that
 * sends only its new message cannot be told apart, and never regenerates.
 */
import type { ClientPrompt } from '../../context/types.js'
import type { Charpipe } from '../../engine/types.js'
import type { StoredMessage } from '../../memory/types.js'
import { CharpipeError, StoreUnavailableError } from '../../shared/errors.js'
import type { Logger } from '../../shared/logger.js'

export interface FindRegeneratedTurnOptions {
  /** The session's newest stored messages, oldest first (its newest turn's at least). */
  stored: readonly StoredMessage[]
  /** The request's input text. */
  text: string
  /** The client's own earlier turns as it sent them; undefined when it sent only its input. */
  clientHistory: ClientPrompt['history']
}

// A client may keep its replies with the inline emotion tags it was sent.
const inlineTags = /<\|[^|]*\|>|\[[^\]\n]{1,40}\]/g
const normalize = (text: string) => text.replace(inlineTags, '').replace(/\s+/g, ' ').trim()

/** The id of the turn the request regenerates, or undefined when it is a new turn. */
export function findRegeneratedTurn(options: FindRegeneratedTurnOptions): string | undefined {
  const { stored, clientHistory } = options
  if (!clientHistory) return undefined
  const turn = stored.at(-1)?.turn
  if (turn === undefined) return undefined
  const question = stored.find((message) => message.turn === turn && message.role === 'user')
  if (!question || question.content !== options.text) return undefined
  const answer = stored.find((message) => message.turn === turn && message.role === 'assistant')
  const clientAnswer = clientHistory.findLast((message) => message.role === 'assistant')
  if (answer && clientAnswer && normalize(clientAnswer.content) === normalize(answer.content))
    return undefined
  return turn
}

export interface ReadRegeneratedTurnOptions {
  charpipe: { readonly sessions: Pick<Charpipe['sessions'], 'history'> }
  /** The engine's session (in the client's namespace). */
  session: string
  /** The engine's character id; undefined for the default character. */
  character: string | undefined
  text: string
  clientHistory: ClientPrompt['history']
  logger: Logger
}

/** The turn a request regenerates (none: a new turn), or why that could not be told. */
export type ReadRegeneratedTurnResult =
  | { ok: true; replaces: string | undefined }
  | { ok: false; error: StoreUnavailableError }

/**
 * `findRegeneratedTurn` over the session's newest stored messages, read from the engine. Without
 * the store's answer the request cannot be told from a new turn, and run as one a regenerate would
 * store its question twice: it fails instead (`store_unavailable`, logged), for the client to retry.
 */
export async function readRegeneratedTurn(
  options: ReadRegeneratedTurnOptions,
): Promise<ReadRegeneratedTurnResult> {
  if (!options.clientHistory) return { ok: true, replaces: undefined }
  try {
    const stored = await options.charpipe.sessions.history({
      session: options.session,
      limit: 2,
      ...(options.character ? { character: options.character } : {}),
    })
    const replaces = findRegeneratedTurn({ stored, text: options.text, clientHistory: options.clientHistory })
    return { ok: true, replaces }
  } catch (error) {
    options.logger.warn(
      { err: error, session: options.session },
      'could not read the session to tell a regenerate',
    )
    // A store's own error names the store and what happened, never its address; anything else stays in the log.
    const reason = CharpipeError.isInstance(error) ? error.message : 'the history could not be read'
    const message = `could not tell whether this request regenerates the last reply, so it was not run: ${reason}`
    return { ok: false, error: new StoreUnavailableError(message, { store: 'history', cause: error }) }
  }
}
