/**
 * The front ends that hold a token of their own (`server.clients`): each client's name, its profile
 * (how the OpenAI-compatible endpoints serve it) and when it was last used. Clients are set in
 * config.yaml only; their tokens never reach the page.
 */
import { translate } from '../lib/i18n.js'
import { useLoadedJson } from '../lib/use-loaded-json.js'

interface ClientListing {
  clients: {
    name: string
    profile: {
      character: string
      session: string
      persona: string
      history: string
      emotion: string
      emotion_names: Record<string, string>
    }
    last_used_at: string | null
  }[]
}

export function ClientsSection() {
  const {
    value: listing,
    errorMessage,
    refresh,
  } = useLoadedJson<ClientListing>('/api/clients', (answer) => ({ clients: answer?.clients ?? [] }))
  return (
    <div class="tools-section" data-section="clients">
      <h3>{translate('clients.title')}</h3>
      <p class="hint">{translate('clients.hint')}</p>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {translate('clients.loadFailed', { message: errorMessage })}
        </div>
      ) : null}
      {listing.clients.length === 0 ? <p class="hint">{translate('clients.none')}</p> : null}
      <ul class="kb-list">
        {listing.clients.map((client) => (
          <li data-client={client.name}>
            <strong>{client.name}</strong>{' '}
            <span class="badge" data-client-emotion={client.profile.emotion}>
              {client.profile.emotion}
            </span>
            <div class="hint">
              {translate('clients.profile', {
                session: client.profile.session,
                persona: client.profile.persona,
                history: client.profile.history,
                emotion: client.profile.emotion,
              })}
              {client.profile.character
                ? ` · ${translate('clients.character', { character: client.profile.character })}`
                : ''}
            </div>
            <div class="hint" data-client-last-used={client.last_used_at ?? ''}>
              {client.last_used_at
                ? translate('clients.lastUsed', { time: new Date(client.last_used_at).toLocaleString() })
                : translate('clients.neverUsed')}
            </div>
          </li>
        ))}
      </ul>
      <button type="button" data-action="clients-refresh" onClick={() => void refresh()}>
        {translate('clients.refresh')}
      </button>
    </div>
  )
}
