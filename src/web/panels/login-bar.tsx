/**
 * Asks for the server token after a 401. With no token stored the server needs one; with one stored
 * the server refused it, and the bar says so rather than leaving the page silently empty.
 */
import { useState } from 'preact/hooks'
import { translate } from '../lib/i18n.js'
import { readToken, saveToken } from '../lib/token-store.js'

export function LoginBar(props: { refused: boolean; onToken(): void }) {
  const [token, setToken] = useState(readToken())
  return (
    <form
      class="login-bar"
      data-login
      data-refused={props.refused ? 'true' : 'false'}
      role="alert"
      onSubmit={(event) => {
        event.preventDefault()
        saveToken(token.trim())
        props.onToken()
      }}
    >
      <strong>{translate(props.refused ? 'token.refusedTitle' : 'token.requiredTitle')}</strong>
      <span class="hint">{translate(props.refused ? 'token.refusedHint' : 'token.requiredHint')}</span>
      <input
        type="password"
        name="token"
        autocomplete="current-password"
        placeholder={translate('token.placeholder')}
        value={token}
        onInput={(event) => setToken(event.currentTarget.value)}
      />
      <button type="submit" class="primary">
        {translate('token.submit')}
      </button>
    </form>
  )
}
