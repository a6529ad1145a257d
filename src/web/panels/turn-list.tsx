/** The turns of this page's conversation, newest last: user line, reply sentences, done state. */
import type { TurnView } from '../lib/apply-chat-frame.js'
import { getEmotionFace } from '../lib/get-emotion-face.js'

export function TurnList(props: { turns: TurnView[]; emotionAliases: Record<string, string> }) {
  return (
    <ol class="turns" data-turns>
      {props.turns.map((turn) => (
        <li class="turn" data-turn={turn.id ?? ''} data-status={turn.status}>
          {turn.userText ? (
            <div class="user-line">
              🧑 {turn.userText}
              {turn.userEmotion ? <span class="badge">{turn.userEmotion}</span> : null}
              {turn.imageCount > 0 ? <span class="badge">🖼 {turn.imageCount}</span> : null}
            </div>
          ) : null}
          <ol class="sentences">
            {turn.sentences.map((sentence) => (
              <li class="sentence" data-index={sentence.index} data-emotion={sentence.emotion}>
                <span class="badge emotion">
                  {getEmotionFace(sentence.emotion, props.emotionAliases)} {sentence.emotion}
                </span>{' '}
                {sentence.text}
              </li>
            ))}
          </ol>
          {turn.status !== 'done' && turn.sentences.length === 0 && turn.subtitles ? (
            <div class="partial">{turn.subtitles}</div>
          ) : null}
          {turn.errors.map((error) => (
            <div class="error-box turn-error" role="alert">
              {error}
            </div>
          ))}
          <div class="turn-state" data-state={turn.status}>
            {turn.status === 'waiting' ? '⏳ 等待回复 (waiting)' : null}
            {turn.status === 'streaming' ? '✍️ 回复中 (streaming)' : null}
            {turn.status === 'done' ? (turn.interrupted ? '⏹ 已打断 (interrupted)' : '✅ 完成 (done)') : null}
          </div>
        </li>
      ))}
    </ol>
  )
}
