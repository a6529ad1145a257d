/**
 * The turns of this session's conversation, newest last: user line, reply sentences and how the turn
 * ended. A failed turn says what went wrong and what to check (never "done"); an interrupted one says
 * it was interrupted, in the normal colours, because nothing is wrong. A silent turn is a quiet marker,
 * never an empty bubble; a thought is folded, dimmed, above the reply; an event is a centred note.
 */

import { translateEmotionLabel } from '../../shared/language/emotion-labels.js'
import { readTurnOutcome, type TurnReport, type TurnView } from '../lib/apply-chat-frame.js'
import { isUnansweredTurn } from '../lib/convert-stored-messages.js'
import { type ChatErrorFrame, describeChatError } from '../lib/describe-chat-error.js'
import { getEmotionFace } from '../lib/get-emotion-face.js'
import { getLanguage, translate } from '../lib/i18n.js'

/** One error with what to check; the server's own words folded under "details". */
export function ChatErrorView(props: { error: ChatErrorFrame }) {
  const described = describeChatError(props.error)
  return (
    <div class="error-box turn-error" role="alert" data-error-code={props.error.code}>
      <div class="error-summary">{described.summary}</div>
      {described.check ? <div class="error-check">{described.check}</div> : null}
      {described.detail ? (
        <details class="error-detail">
          <summary>{translate('turn.details')}</summary>
          <code>{described.detail}</code>
        </details>
      ) : null}
    </div>
  )
}

/** An event nobody answered (yet): a note in the conversation, not a turn with an outcome. */
function isEventNote(turn: TurnView): boolean {
  return (
    turn.toldEvent === true &&
    turn.eventText !== undefined &&
    turn.userText === '' &&
    turn.subtitles === '' &&
    turn.silent !== true &&
    readTurnOutcome(turn) === 'done'
  )
}

function TurnState(props: { turn: TurnView }) {
  const outcome = readTurnOutcome(props.turn)
  if (isEventNote(props.turn)) return null
  if (outcome === 'waiting') return <span>{translate('turn.waiting')}</span>
  if (outcome === 'streaming') return <span>{translate('turn.streaming')}</span>
  if (outcome === 'failed') return <span>{translate('turn.failed')}</span>
  if (outcome === 'interrupted')
    return (
      <span>
        {translate(props.turn.interruptedByNewInput ? 'turn.interruptedByNewInput' : 'turn.interrupted')}
      </span>
    )
  if (isUnansweredTurn(props.turn)) return <span>{translate('turn.noReply')}</span>
  // Restored turns are history: a "done" mark on each would only be noise.
  return props.turn.restored ? null : <span>{translate('turn.done')}</span>
}

/** Time to the first sentence (what a voice user waits for), total time and tokens. */
function TurnReportLine(props: { report: TurnReport }) {
  const { report } = props
  const parts: string[] = []
  const ms = (value: number) => Math.round(value).toLocaleString()
  if (report.firstSentenceMs !== undefined)
    parts.push(translate('turn.firstSentence', { ms: ms(report.firstSentenceMs) }))
  if (report.totalMs !== undefined) parts.push(translate('turn.total', { ms: ms(report.totalMs) }))
  if (report.promptTokens !== undefined && report.completionTokens !== undefined)
    parts.push(
      translate('turn.tokens', { prompt: report.promptTokens, completion: report.completionTokens }) +
        (report.cachedTokens ? ` (${translate('turn.cached', { cached: report.cachedTokens })})` : ''),
    )
  return parts.length > 0 ? <div class="turn-report">{parts.join(' · ')}</div> : null
}

export function TurnList(props: { turns: TurnView[]; emotionAliases: Record<string, string> }) {
  return (
    <ol class="turns" data-turns>
      {props.turns.map((turn) => (
        <li
          class={`turn${turn.restored ? ' turn-restored' : ''}${isEventNote(turn) ? ' turn-note' : ''}`}
          data-turn={turn.id ?? ''}
          data-status={turn.status}
          data-outcome={readTurnOutcome(turn)}
        >
          {turn.eventText && turn.toldEvent ? (
            <div class="event-line" data-event>
              📣 {translate('chat.event', { text: turn.eventText })}
            </div>
          ) : turn.eventText || turn.trigger === 'idle' ? (
            <div class="event-line" data-event title={turn.eventText}>
              ⏰ {translate('chat.idleEvent')}
            </div>
          ) : null}
          {turn.userText ? (
            <div class="user-line">
              🧑 {turn.userText}
              {turn.userEmotion ? <span class="badge">{turn.userEmotion}</span> : null}
              {turn.imageCount > 0 ? <span class="badge">🖼 {turn.imageCount}</span> : null}
            </div>
          ) : null}
          {turn.thought ? (
            <details class="thought" data-thought>
              <summary class="thought-label">{translate('chat.thought')}</summary>
              <p>{turn.thought}</p>
            </details>
          ) : null}
          {turn.silent ? (
            <div class="silent-line" data-silent>
              {translate('chat.silent')}
            </div>
          ) : null}
          {turn.trigger === 'say' ? (
            <div class="say-line" data-say>
              {translate('chat.said')}
            </div>
          ) : null}
          <ol class="sentences">
            {turn.sentences.map((sentence) => (
              <li class="sentence" data-index={sentence.index} data-emotion={sentence.emotion}>
                <span class="badge emotion">
                  {getEmotionFace(sentence.emotion, props.emotionAliases)}{' '}
                  {translateEmotionLabel(sentence.emotion, getLanguage())}
                </span>{' '}
                {sentence.text}
              </li>
            ))}
          </ol>
          {turn.status !== 'done' && turn.sentences.length === 0 && turn.subtitles ? (
            <div class="partial">{turn.subtitles}</div>
          ) : null}
          {turn.errors.map((error) => (
            <ChatErrorView error={error} />
          ))}
          <div class={`turn-state turn-${readTurnOutcome(turn)}`} data-state={turn.status}>
            <TurnState turn={turn} />
          </div>
          {turn.report ? <TurnReportLine report={turn.report} /> : null}
        </li>
      ))}
    </ol>
  )
}
