/**
 * The chat console: send text (with a user emotion and images), watch the reply grow as subtitles,
 * its sentences with emotion badges and the character's current emotion as a face; interrupt it;
 * pick a session and read its stored history.
 */
import { useEffect, useState } from 'preact/hooks'
import { requestJson } from '../lib/api-client.js'
import { addUserTurn, type ChatState, isReplyRunning } from '../lib/apply-chat-frame.js'
import type { ChatSocket, SocketStatus } from '../lib/create-chat-socket.js'
import { getEmotionFace } from '../lib/get-emotion-face.js'
import { formatTime, readContentText, readResponseList } from '../lib/read-response-list.js'
import { SessionPicker } from './session-picker.js'
import { TurnList } from './turn-list.js'
import { UserEmotionSelect } from './user-emotion-select.js'

export interface ChatPanelProps {
  socket: ChatSocket | undefined
  status: SocketStatus
  state: ChatState
  setState(update: (state: ChatState) => ChatState): void
  session: string
  onSessionChange(session: string): void
  emotionAliases: Record<string, string>
  emotionKeys: string[]
}

interface StoredMessage {
  role: string
  content: unknown
  emotion?: string
  interrupted?: boolean
  createdAt?: unknown
}

function readAsDataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`))
    reader.readAsDataURL(file)
  })
}

export function ChatPanel(props: ChatPanelProps) {
  const [text, setText] = useState('')
  const [emotion, setEmotion] = useState('')
  const [imageUrls, setImageUrls] = useState('')
  const [uploads, setUploads] = useState<string[]>([])
  const [history, setHistory] = useState<StoredMessage[] | undefined>()
  const [historyError, setHistoryError] = useState('')
  const running = isReplyRunning(props.state)

  const loadHistory = async () => {
    setHistoryError('')
    try {
      const body = await requestJson('GET', `/api/sessions/${encodeURIComponent(props.session)}/messages`)
      setHistory(readResponseList<StoredMessage>(body))
    } catch (error) {
      setHistory(undefined)
      setHistoryError(error instanceof Error ? error.message : String(error))
    }
  }
  useEffect(() => {
    void loadHistory()
  }, [props.session])

  const send = (event: Event) => {
    event.preventDefault()
    if (!text.trim()) return
    const images = [...imageUrls.split(/\s+/).filter((url) => url !== ''), ...uploads]
    const frame: Record<string, unknown> = { type: 'user_input', session: props.session, text }
    if (emotion) frame.emotion = emotion
    if (images.length > 0) frame.images = images
    if (!props.socket?.send(frame)) {
      props.setState((state) => ({
        ...state,
        errors: [...state.errors, '未连接到服务器，消息未发送 (not connected: not sent)'],
      }))
      return
    }
    props.setState((state) =>
      addUserTurn(state, { text, emotion: emotion || undefined, imageCount: images.length }),
    )
    setText('')
    setUploads([])
  }

  const interrupt = () => {
    props.socket?.send({ type: 'interrupt', session: props.session })
  }

  const lastTurn = props.state.turns.at(-1)
  return (
    <section class="panel chat" data-panel="chat">
      <div class="chat-top">
        <div class="avatar" data-emotion={props.state.emotion ?? ''} title={props.state.emotion ?? ''}>
          <span class="avatar-face">{getEmotionFace(props.state.emotion, props.emotionAliases)}</span>
          <span class="avatar-label">{props.state.emotion ?? '—'}</span>
        </div>
        <div class="subtitles" data-subtitles aria-live="polite">
          {lastTurn?.subtitles || <span class="hint">字幕会在这里逐字出现 (live subtitles)</span>}
        </div>
      </div>
      <div class="chat-status">
        <span class={`dot dot-${props.status}`} />{' '}
        {props.status === 'open'
          ? '已连接 (connected)'
          : props.status === 'connecting'
            ? '连接中… (connecting)'
            : '已断开，正在重连 (reconnecting)'}
        <SessionPicker session={props.session} onChange={props.onSessionChange} />
      </div>
      {props.state.errors.length > 0 ? (
        <div class="error-box" role="alert" data-chat-errors>
          {props.state.errors.slice(-3).map((error) => (
            <div>{error}</div>
          ))}
          <button
            type="button"
            class="small"
            onClick={() => props.setState((state) => ({ ...state, errors: [] }))}
          >
            清除 (clear)
          </button>
        </div>
      ) : null}
      <form class="chat-form" onSubmit={send}>
        <input
          type="text"
          name="chat-text"
          placeholder="说点什么… (say something)"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <UserEmotionSelect
          name="chat-emotion"
          keys={props.emotionKeys}
          value={emotion}
          onChange={setEmotion}
        />
        <button type="submit" class="primary" data-action="send">
          发送 (send)
        </button>
        <button type="button" class="danger" data-action="interrupt" disabled={!running} onClick={interrupt}>
          打断 (interrupt)
        </button>
        <details class="chat-images">
          <summary>图片 (images){uploads.length > 0 ? ` · ${uploads.length}` : ''}</summary>
          <input
            type="text"
            name="chat-image-urls"
            placeholder="图片 URL，空格分隔 (image URLs)"
            value={imageUrls}
            onInput={(event) => setImageUrls(event.currentTarget.value)}
          />
          <input
            type="file"
            accept="image/*"
            multiple
            onChange={async (event) => {
              const files = [...(event.currentTarget.files ?? [])]
              setUploads(await Promise.all(files.map(readAsDataUri)))
            }}
          />
        </details>
      </form>
      <TurnList turns={props.state.turns} emotionAliases={props.emotionAliases} />
      <details class="history" open={false}>
        <summary>
          会话 {props.session} 的历史 (stored history){history ? `: ${history.length}` : ''}{' '}
          <button type="button" class="small" onClick={() => void loadHistory()}>
            刷新 (reload)
          </button>
        </summary>
        {historyError ? <div class="error-box">{historyError}</div> : null}
        <ul class="history-list">
          {(history ?? []).map((message) => (
            <li class={`history-${message.role}`}>
              <span class="badge">{message.role}</span>
              {message.emotion ? <span class="badge emotion">{message.emotion}</span> : null}
              {message.interrupted ? <span class="badge warn">interrupted</span> : null}{' '}
              {readContentText(message.content)} <small>{formatTime(message.createdAt)}</small>
            </li>
          ))}
        </ul>
      </details>
    </section>
  )
}
