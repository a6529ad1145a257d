/** Context preview: the messages the model would get for a text, with source tags and token counts. */
import { useState } from 'preact/hooks'
import { requestJson } from '../lib/api-client.js'
import { getLanguage, translate } from '../lib/i18n.js'
import { readContentText } from '../lib/read-response-list.js'
import { UserEmotionSelect } from './user-emotion-select.js'

interface PreviewMessage {
  role: string
  content: unknown
  source?: string
  tokens?: number
}

interface PreviewLog {
  processorId?: string
  level?: string
  message?: string
}

interface PreviewAnswer {
  messages: PreviewMessage[]
  total_tokens: number
  logs?: PreviewLog[]
}

export function PreviewPanel(props: { session: string; character?: string; emotionKeys: string[] }) {
  const [text, setText] = useState(getLanguage() === 'zh' ? '你好' : 'Hello')
  const [emotion, setEmotion] = useState('')
  const [session, setSession] = useState(props.session)
  const [answer, setAnswer] = useState<PreviewAnswer | undefined>()
  const [errorMessage, setErrorMessage] = useState('')
  const [loading, setLoading] = useState(false)

  const run = async (event?: Event) => {
    event?.preventDefault()
    setLoading(true)
    setErrorMessage('')
    // Cleared first so the shown result is always the answer to the text shown.
    setAnswer(undefined)
    try {
      const body: Record<string, unknown> = { session, text }
      // The context of the character the header shows (absent: the default one).
      if (props.character) body.character = props.character
      if (emotion) body.emotion = emotion
      setAnswer(await requestJson<PreviewAnswer>('POST', '/api/preview', body))
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    } finally {
      setLoading(false)
    }
  }

  return (
    <section class="panel" data-panel="preview">
      <h2>{translate('preview.title')}</h2>
      <form class="inline-form" onSubmit={run}>
        <input
          type="text"
          name="preview-text"
          placeholder={translate('preview.placeholder')}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <input
          type="text"
          name="preview-session"
          class="narrow"
          title={translate('preview.session')}
          value={session}
          onInput={(event) => setSession(event.currentTarget.value)}
        />
        <UserEmotionSelect
          name="preview-emotion"
          keys={props.emotionKeys}
          value={emotion}
          onChange={setEmotion}
        />
        <button type="submit" class="primary" data-action="preview" disabled={loading}>
          {translate(loading ? 'preview.running' : 'preview.run')}
        </button>
      </form>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {errorMessage}
        </div>
      ) : null}
      {answer ? (
        <div class="preview-result">
          <p class="total" data-total-tokens={answer.total_tokens}>
            {translate('preview.total', { count: answer.messages.length, tokens: answer.total_tokens })}
          </p>
          <ol class="preview-messages">
            {answer.messages.map((message) => (
              <li class={`preview-message role-${message.role}`} data-source={message.source ?? ''}>
                <div class="preview-meta">
                  <span class="badge role">{message.role}</span>
                  <span class="badge source">{message.source ?? '—'}</span>
                  <span class="tokens">{message.tokens ?? '?'} tokens</span>
                </div>
                <pre class="preview-content">{readContentText(message.content)}</pre>
              </li>
            ))}
          </ol>
          {answer.logs && answer.logs.length > 0 ? (
            <details class="preview-logs" open>
              <summary>{translate('preview.logs', { count: answer.logs.length })}</summary>
              <ul>
                {answer.logs.map((log) => (
                  <li class={`log-${log.level ?? 'info'}`}>
                    <code>{log.processorId}</code> [{log.level}] {log.message}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      ) : null}
    </section>
  )
}
