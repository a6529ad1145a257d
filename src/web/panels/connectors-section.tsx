/**
 * Where the character lives besides this page: each connector of `connectors` (a QQ group through
 * OneBot, a Twitch channel, a Bilibili live room) with its state (`connecting`, `ready`, `failed` and
 * why), what the streamer should know while it runs (the room is offline, replies refused), its
 * sessions, how many messages came in and went out, and what was counted without a turn (entries,
 * follows, silver gifts, danmaku below the user level, thank-you lines; describe-connector-counts.ts
 * words every count). Connectors are set in config.yaml only.
 */
import { type ConnectorCounts, describeConnectorCounts } from '../lib/describe-connector-counts.js'
import { translate } from '../lib/i18n.js'
import { useLoadedJson } from '../lib/use-loaded-json.js'

interface ConnectorEntry extends ConnectorCounts {
  name: string
  kind: string
  state: string
  error?: string
  notice?: string
  sessions: string[]
}

interface ConnectorListing {
  connectors: ConnectorEntry[]
}

export function ConnectorsSection() {
  const {
    value: listing,
    errorMessage,
    refresh,
  } = useLoadedJson<ConnectorListing>('/api/connectors', (answer) => ({
    connectors: answer?.connectors ?? [],
  }))
  return (
    <div class="tools-section" data-section="connectors">
      <h3>{translate('connectors.title')}</h3>
      <p class="hint">{translate('connectors.hint')}</p>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {translate('connectors.loadFailed', { message: errorMessage })}
        </div>
      ) : null}
      {listing.connectors.length === 0 ? <p class="hint">{translate('connectors.none')}</p> : null}
      <ul class="kb-list">
        {listing.connectors.map((connector) => (
          <li data-connector={connector.name}>
            <strong>{connector.name}</strong> <span class="badge">{connector.kind}</span>{' '}
            <span class="badge" data-connector-state={connector.state}>
              {connector.state}
            </span>
            {connector.error ? <span> {connector.error}</span> : null}
            {connector.notice ? (
              <div class="hint" data-connector-notice>
                {translate('connectors.notice', { notice: connector.notice })}
              </div>
            ) : null}
            <div class="hint">
              {translate('connectors.sessions', { sessions: connector.sessions.join(', ') || '—' })}
              {describeConnectorCounts(connector).map((described) => (
                <span data-count={described.field}> · {described.text}</span>
              ))}
            </div>
          </li>
        ))}
      </ul>
      <button type="button" data-action="connectors-refresh" onClick={() => void refresh()}>
        {translate('connectors.refresh')}
      </button>
    </div>
  )
}
