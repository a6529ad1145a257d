/**
 * The owner's two ways to act in a session besides chatting (admin token): "say" makes the character
 * say a text word for word (`POST /api/sessions/:id/say`, a turn with `trigger: "say"` that the chat
 * shows as the character's reply), and "event" tells the character what happened
 * (`POST /api/sessions/:id/events`, stored with role `event`, answered at once when `respond`).
 * A server without these endpoints answers 404: that is said in words, the page goes on.
 */
import { useState } from 'preact/hooks'
import { ApiError, requestJson } from '../lib/api-client.js'
import { translate } from '../lib/i18n.js'

export interface OwnerVoiceBoxProps {
  session: string
  /** The character spoken for; undefined: the default one. */
  character: string | undefined
  /**
   * Called after the server stored an event, to show it in the chat (a say needs nothing: its turn
   * comes over the chat's socket, which follows the session).
   */
  onEvent(text: string): void
}

interface Outcome {
  ok: boolean
  text: string
}

function describeFailure(error: unknown, path: string): string {
  if (error instanceof ApiError && error.status === 404) return translate('owner.notAvailable', { path })
  return translate('owner.failed', { message: error instanceof Error ? error.message : String(error) })
}

export function OwnerVoiceBox(props: OwnerVoiceBoxProps) {
  const [sayText, setSayText] = useState('')
  const [sayEmotion, setSayEmotion] = useState('')
  const [eventText, setEventText] = useState('')
  const [respond, setRespond] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | undefined>()
  const base = `/api/sessions/${encodeURIComponent(props.session)}`
  const character = props.character ? { character: props.character } : {}

  const say = async (event: Event) => {
    event.preventDefault()
    if (!sayText.trim()) return
    const path = `${base}/say`
    const body = { ...character, text: sayText, ...(sayEmotion.trim() ? { emotion: sayEmotion.trim() } : {}) }
    try {
      const answer = await requestJson<{ turn?: unknown } | undefined>('POST', path, body)
      setOutcome({ ok: true, text: translate('owner.sent', { turn: String(answer?.turn ?? '—') }) })
      setSayText('')
    } catch (error) {
      setOutcome({ ok: false, text: describeFailure(error, path) })
    }
  }

  const sendEvent = async (event: Event) => {
    event.preventDefault()
    if (!eventText.trim()) return
    const path = `${base}/events`
    try {
      const answer = await requestJson<{ id?: unknown } | undefined>('POST', path, {
        ...character,
        text: eventText,
        respond,
      })
      setOutcome({ ok: true, text: translate('owner.eventSent', { id: String(answer?.id ?? '—') }) })
      setEventText('')
      props.onEvent(eventText)
    } catch (error) {
      setOutcome({ ok: false, text: describeFailure(error, path) })
    }
  }

  return (
    <details class="owner-voice" data-owner-voice>
      <summary>{translate('owner.title')}</summary>
      <form onSubmit={say} data-form="say">
        <input
          type="text"
          name="say-text"
          placeholder={translate('owner.sayText')}
          value={sayText}
          onInput={(event) => setSayText(event.currentTarget.value)}
        />
        <input
          type="text"
          name="say-emotion"
          class="short"
          placeholder={translate('owner.sayEmotion')}
          value={sayEmotion}
          onInput={(event) => setSayEmotion(event.currentTarget.value)}
        />
        <button type="submit" data-action="say">
          {translate('owner.say')}
        </button>
      </form>
      <form onSubmit={sendEvent} data-form="event">
        <input
          type="text"
          name="event-text"
          placeholder={translate('owner.eventText')}
          value={eventText}
          onInput={(event) => setEventText(event.currentTarget.value)}
        />
        <label>
          <input
            type="checkbox"
            name="event-respond"
            checked={respond}
            onChange={(event) => setRespond(event.currentTarget.checked)}
          />{' '}
          {translate('owner.respond')}
        </label>
        <button type="submit" data-action="send-event">
          {translate('owner.sendEvent')}
        </button>
      </form>
      {outcome ? (
        <div
          class={outcome.ok ? 'hint' : 'error-box'}
          role={outcome.ok ? 'status' : 'alert'}
          data-owner-outcome={outcome.ok ? 'ok' : 'failed'}
        >
          {outcome.text}
        </div>
      ) : null}
    </details>
  )
}
