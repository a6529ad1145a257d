/**
 * The chat console: send text (with a user emotion and images), watch the reply grow as subtitles,
 * its sentences with emotion badges and the character's current emotion as a face; interrupt it;
 * pick a session, see its stored conversation (restored on load) and clear it. The owner can also make
 * the character say a line or tell it an event (owner-voice-box.tsx).
 */
import { useEffect, useState } from 'preact/hooks'
import { translateEmotionLabel } from '../../shared/language/emotion-labels.js'
import { ConfirmButton } from '../components/confirm-button.js'
import { showToast } from '../components/toast.js'
import { ApiError, requestJson } from '../lib/api-client.js'
import {
  addEventNote,
  addUserTurn,
  type ChatState,
  initialChatState,
  isReplyRunning,
} from '../lib/apply-chat-frame.js'
import type { ConfigFileStatus } from '../lib/config-status.js'
import { convertStoredMessages, type StoredChatMessage } from '../lib/convert-stored-messages.js'
import type { ChatSocket, SocketStatus } from '../lib/create-chat-socket.js'
import { getEmotionFace } from '../lib/get-emotion-face.js'
import { getLanguage, translate } from '../lib/i18n.js'
import { readResponseList } from '../lib/read-response-list.js'
import type { ConfigObject } from '../lib/use-config-draft.js'
import { AnsweringModel } from './answering-model.js'
import { OwnerVoiceBox } from './owner-voice-box.js'
import { SessionPicker } from './session-picker.js'
import { ChatErrorView, TurnList } from './turn-list.js'
import { UserEmotionSelect } from './user-emotion-select.js'

export interface ChatPanelProps {
  socket: ChatSocket | undefined
  status: SocketStatus
  /** The server refused the token (or wants one): the socket cannot connect until it is entered. */
  needsToken: boolean
  state: ChatState
  setState(update: (state: ChatState) => ChatState): void
  session: string
  /** The character spoken to; undefined: the default one. */
  character: string | undefined
  /** Greetings stored so far by the server on this page's `open`: each reloads the conversation. */
  greetings: number
  onSessionChange(session: string): void
  emotionAliases: Record<string, string>
  emotionKeys: string[]
  config: ConfigObject | undefined
  configStatus: ConfigFileStatus | undefined
  /** The character's picture, shown in the face box instead of the emotion face when it has one. */
  picture?: string
}

function readAsDataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`))
    reader.readAsDataURL(file)
  })
}

function describeSocketStatus(status: SocketStatus, needsToken: boolean): string {
  if (needsToken && status !== 'open') return translate('chat.tokenRefused')
  if (status === 'open') return translate('chat.connected')
  return translate(status === 'connecting' ? 'chat.connecting' : 'chat.reconnecting')
}

export function ChatPanel(props: ChatPanelProps) {
  const [text, setText] = useState('')
  const [emotion, setEmotion] = useState('')
  const [imageUrls, setImageUrls] = useState('')
  const [uploads, setUploads] = useState<string[]>([])
  const [storedCount, setStoredCount] = useState<number | undefined>()
  const [historyError, setHistoryError] = useState('')
  const running = isReplyRunning(props.state)
  const path = `/api/sessions/${encodeURIComponent(props.session)}`
  const characterQuery = props.character ? `?character=${encodeURIComponent(props.character)}` : ''

  const readStored = async (): Promise<StoredChatMessage[] | undefined> => {
    setHistoryError('')
    try {
      const messages = readResponseList<StoredChatMessage>(
        await requestJson('GET', `${path}/messages${characterQuery}`),
      )
      setStoredCount(messages.length)
      return messages
    } catch (error) {
      // A refused token is told once, by the token bar, not again here.
      if (!(error instanceof ApiError && error.status === 401))
        setHistoryError(error instanceof Error ? error.message : String(error))
      return undefined
    }
  }

  /** Shows the stored conversation; turns still running on this page stay after it. */
  const restoreConversation = async () => {
    const messages = await readStored()
    if (!messages) return
    const restored = convertStoredMessages(messages)
    props.setState((state) => ({
      ...state,
      turns: [...restored, ...state.turns.filter((turn) => turn.status !== 'done')],
      // The face shows the character as it was last left.
      emotion: state.emotion ?? restored.findLast((turn) => turn.emotion)?.emotion,
    }))
  }
  useEffect(() => {
    if (props.needsToken) return
    setStoredCount(undefined)
    void restoreConversation()
  }, [props.session, props.character, props.greetings, props.needsToken])

  // Shown, the chat opens its session with the character: a new one gets its greeting, stored by
  // the server, and the conversation is read again when the `opened` frame says so.
  useEffect(() => {
    if (props.status !== 'open' || props.needsToken) return
    props.socket?.send({
      type: 'open',
      session: props.session,
      ...(props.character ? { character: props.character } : {}),
    })
  }, [props.status, props.session, props.character, props.needsToken])

  // The stored count follows the turns that end on this page.
  const finishedHere = props.state.turns.filter((turn) => !turn.restored && turn.status === 'done').length
  useEffect(() => {
    if (finishedHere > 0) void readStored()
  }, [finishedHere])

  const clearSession = async () => {
    try {
      await requestJson('DELETE', `${path}${characterQuery}`)
      props.setState(() => initialChatState)
      setStoredCount(0)
      showToast(translate('chat.sessionCleared', { session: props.session }))
    } catch (error) {
      setHistoryError(error instanceof Error ? error.message : String(error))
    }
  }

  const send = (event: Event) => {
    event.preventDefault()
    if (!text.trim()) return
    const images = [...imageUrls.split(/\s+/).filter((url) => url !== ''), ...uploads]
    const frame: Record<string, unknown> = { type: 'user_input', session: props.session, text }
    if (props.character) frame.character = props.character
    if (emotion) frame.emotion = emotion
    if (images.length > 0) frame.images = images
    if (!props.socket?.send(frame)) {
      props.setState((state) => ({ ...state, errors: [...state.errors, { code: 'not_connected' }] }))
      return
    }
    props.setState((state) =>
      addUserTurn(state, { text, emotion: emotion || undefined, imageCount: images.length }),
    )
    setText('')
    setUploads([])
  }

  const interrupt = () => {
    props.socket?.send({
      type: 'interrupt',
      session: props.session,
      ...(props.character ? { character: props.character } : {}),
    })
  }

  // An event note has no words of its own: the subtitles keep the last line said.
  const lastTurn = props.state.turns.findLast(
    (turn) => turn.eventText === undefined || turn.subtitles !== '' || turn.status !== 'done',
  )
  return (
    <section class="panel chat" data-panel="chat">
      <AnsweringModel config={props.config} status={props.configStatus} />
      <div class="chat-top">
        <div class="avatar" data-emotion={props.state.emotion ?? ''} title={props.state.emotion ?? ''}>
          {props.picture ? (
            <img class="avatar-picture" src={props.picture} alt="" data-avatar-picture />
          ) : (
            <span class="avatar-face">{getEmotionFace(props.state.emotion, props.emotionAliases)}</span>
          )}
          <span class="avatar-label">
            {props.state.emotion ? translateEmotionLabel(props.state.emotion, getLanguage()) : '—'}
          </span>
        </div>
        <div class="subtitles" data-subtitles aria-live="polite">
          {(lastTurn?.restored ? '' : lastTurn?.subtitles) || (
            <span class="hint">{translate('chat.subtitlesPlaceholder')}</span>
          )}
        </div>
      </div>
      <div class="chat-status">
        <span class={`dot dot-${props.needsToken && props.status !== 'open' ? 'refused' : props.status}`} />{' '}
        <span data-socket-status>{describeSocketStatus(props.status, props.needsToken)}</span>
        <SessionPicker session={props.session} onChange={props.onSessionChange} />
      </div>
      {props.state.errors.length > 0 ? (
        <div class="chat-errors" data-chat-errors>
          {props.state.errors.slice(-3).map((error) => (
            <ChatErrorView error={error} />
          ))}
          <button
            type="button"
            class="small"
            onClick={() => props.setState((state) => ({ ...state, errors: [] }))}
          >
            {translate('chat.clearErrors')}
          </button>
        </div>
      ) : null}
      <form class="chat-form" onSubmit={send}>
        <input
          type="text"
          name="chat-text"
          placeholder={translate('chat.inputPlaceholder')}
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
          {translate('chat.send')}
        </button>
        <button type="button" class="danger" data-action="interrupt" disabled={!running} onClick={interrupt}>
          {translate('chat.interrupt')}
        </button>
        <details class="chat-images">
          <summary>
            {translate('chat.images')}
            {uploads.length > 0 ? ` · ${uploads.length}` : ''}
          </summary>
          <input
            type="text"
            name="chat-image-urls"
            placeholder={translate('chat.imageUrlsPlaceholder')}
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
      <OwnerVoiceBox
        session={props.session}
        character={props.character}
        onEvent={(text) => props.setState((state) => addEventNote(state, text))}
      />
      <div class="history-bar" data-history>
        <span data-stored-count={storedCount ?? ''}>
          {storedCount === undefined
            ? translate('chat.historyLoading', { session: props.session })
            : translate('chat.history', { session: props.session, count: storedCount })}
        </span>
        <button
          type="button"
          class="small"
          data-action="history-reload"
          onClick={() => void restoreConversation()}
        >
          {translate('chat.reloadHistory')}
        </button>
        <ConfirmButton
          action="session-clear"
          question={translate('chat.clearSessionConfirm', { session: props.session })}
          confirmLabel={translate('chat.clearSessionYes')}
          onConfirm={clearSession}
        >
          {translate('chat.clearSession')}
        </ConfirmButton>
      </div>
      {historyError ? (
        <div class="error-box" role="alert">
          {historyError}
        </div>
      ) : null}
      <TurnList turns={props.state.turns} emotionAliases={props.emotionAliases} />
    </section>
  )
}
