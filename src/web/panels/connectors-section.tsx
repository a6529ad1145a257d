/**
 * Where the character lives besides this page: each connector of `connectors` (a QQ group through
 * OneBot, a Twitch channel) with its state (`connecting`, `ready`, `failed` and why), its sessions
 * and how many messages came in and went out. Connectors are set in config.yaml only.
 */
import { translate } from '../lib/i18n.js'
import { useLoadedJson } from '../lib/use-loaded-json.js'

interface ConnectorListing {
  connectors: {
    name: string
    kind: string
    state: string
    error?: string
    sessions: string[]
    messages_in: number
    messages_out: number
  }[]
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
            <div class="hint">
              {translate('connectors.counts', {
                sessions: connector.sessions.join(', ') || '—',
                in: String(connector.messages_in),
                out: String(connector.messages_out),
              })}
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
