/**
 * The live audience queue of a session (`GET /api/sessions/:id/audience`, admin): messages waiting
 * for a reply with their priority and why, the latest selected and the latest dropped with their
 * reason (in words: describe-drop-reason.ts). The owner pins a message (answered first) or drops
 * it. The session is this page's own or one a connector feeds (picked above the lists, with its
 * link's state and counts, the messages it could not read among them). Refreshed every two seconds.
 */
import { useEffect, useState } from 'preact/hooks'
import { requestJson } from '../lib/api-client.js'
import { type ConnectorCounts, describeConnectorCounts } from '../lib/describe-connector-counts.js'
import { describeDropReason } from '../lib/describe-drop-reason.js'
import { translate } from '../lib/i18n.js'
import {
  AudienceSessionPicker,
  type AudienceTarget,
  type ConnectorSessions,
} from './audience-session-picker.js'

interface QueueEntry {
  id: string
  speaker: { id: string; name?: string; role?: string }
  text: string
  priority?: number
  reasons?: string[]
  pinned?: boolean
  waited_ms?: number
  reason?: string
}

interface AudienceQueue {
  waiting: QueueEntry[]
  selected: QueueEntry[]
  dropped: QueueEntry[]
}

const refreshMs = 2000

function EntryList(props: {
  title: string
  entries: QueueEntry[]
  onAction?(entry: QueueEntry, action: 'pin' | 'drop'): void
}) {
  return (
    <section class="audience-list">
      <h4>{props.title}</h4>
      {props.entries.length === 0 ? <p class="hint">{translate('audience.empty')}</p> : null}
      <ul>
        {props.entries.map((entry) => (
          <li key={entry.id} data-id={entry.id} class={entry.pinned ? 'pinned' : undefined}>
            <strong>{entry.speaker.name || entry.speaker.id}</strong>
            {entry.speaker.role && entry.speaker.role !== 'viewer' ? ` (${entry.speaker.role})` : ''}:{' '}
            {entry.text}
            {entry.priority !== undefined ? (
              <span class="meta">
                {' '}
                · {entry.priority} {entry.reasons?.join(', ')}
              </span>
            ) : null}
            {entry.waited_ms !== undefined ? (
              <span class="meta"> · {Math.round(entry.waited_ms / 1000)} s</span>
            ) : null}
            {entry.reason ? (
              <span class="meta" data-reason={entry.reason}>
                {' '}
                · {describeDropReason(entry.reason)}
              </span>
            ) : null}
            {props.onAction ? (
              <span class="actions">
                {entry.pinned ? null : (
                  <button type="button" onClick={() => props.onAction!(entry, 'pin')}>
                    {translate('audience.pin')}
                  </button>
                )}
                <button type="button" onClick={() => props.onAction!(entry, 'drop')}>
                  {translate('audience.drop')}
                </button>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  )
}

export function AudiencePanel(props: { session: string; character?: string }) {
  const [queue, setQueue] = useState<AudienceQueue>({ waiting: [], selected: [], dropped: [] })
  const [errorMessage, setErrorMessage] = useState('')
  const [connectors, setConnectors] = useState<(ConnectorSessions & ConnectorCounts)[]>([])
  const [target, setTarget] = useState<AudienceTarget>({ session: props.session })
  // The page's chat session changed: show its queue, unless a connector's session is chosen.
  useEffect(() => {
    if (target.connector === undefined) setTarget({ session: props.session })
  }, [props.session])
  const character = target.connector === undefined ? props.character : target.character
  const base = `/api/sessions/${encodeURIComponent(target.session)}/audience`
  const query = character ? `?character=${encodeURIComponent(character)}` : ''
  const refresh = async () => {
    try {
      setQueue(await requestJson<AudienceQueue>('GET', `${base}${query}`))
      setErrorMessage('')
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
    try {
      const listing = await requestJson<{ connectors?: (ConnectorSessions & ConnectorCounts)[] }>(
        'GET',
        '/api/connectors',
      )
      setConnectors(listing.connectors ?? [])
    } catch {
      // Without the listing the picker offers this page's session only.
    }
  }
  const act = async (entry: QueueEntry, action: 'pin' | 'drop') => {
    const path = `${base}/${encodeURIComponent(entry.id)}${action === 'pin' ? '/pin' : ''}${query}`
    try {
      await requestJson(action === 'pin' ? 'POST' : 'DELETE', path)
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
    await refresh()
  }
  useEffect(() => {
    void refresh()
    const timer = setInterval(() => void refresh(), refreshMs)
    return () => clearInterval(timer)
  }, [target.session, character])
  // A connector's session: what its link counted (messages, what could not be read) is shown with it.
  const feeding = connectors.find((connector) => connector.name === target.connector)
  return (
    <div class="panel audience-panel" data-panel="audience">
      <h3>{translate('audience.title')}</h3>
      <p class="hint">{translate('audience.hint')}</p>
      <AudienceSessionPicker
        pageSession={props.session}
        connectors={connectors}
        chosen={target.session}
        onChoose={setTarget}
      />
      {feeding ? (
        <p class="hint" data-connector-counts={feeding.name}>
          {describeConnectorCounts(feeding)
            .map((described) => described.text)
            .join(' · ')}
        </p>
      ) : null}
      {errorMessage ? (
        <div class="error-box" role="alert">
          {translate('audience.loadFailed', { message: errorMessage })}
        </div>
      ) : null}
      <EntryList title={translate('audience.waiting')} entries={queue.waiting} onAction={act} />
      <EntryList title={translate('audience.selected')} entries={queue.selected} />
      <EntryList title={translate('audience.dropped')} entries={queue.dropped} />
    </div>
  )
}
