/**
 * Where the character lives besides this page: each connector of `connectors` (a QQ group through
 * OneBot, a Twitch channel) with its state (`connecting`, `ready`, `failed` and why), its sessions
 * and how many messages came in and went out. Connectors are set in config.yaml only.
 */
import { useEffect, useState } from 'preact/hooks'
import { requestJson } from '../lib/api-client.js'
import { translate } from '../lib/i18n.js'

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
  const [listing, setListing] = useState<ConnectorListing>({ connectors: [] })
  const [errorMessage, setErrorMessage] = useState('')
  const refresh = async () => {
    try {
      const answer = await requestJson<ConnectorListing>('GET', '/api/connectors')
      setListing({ connectors: answer?.connectors ?? [] })
      setErrorMessage('')
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  useEffect(() => {
    void refresh()
  }, [])
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
