/** Asks for the server token after a 401; the token is kept in localStorage. */
import { useState } from 'preact/hooks'
import { readToken, saveToken } from '../lib/token-store.js'

export function LoginBar(props: { onToken(): void }) {
  const [token, setToken] = useState(readToken())
  return (
    <form
      class="login-bar"
      data-login
      onSubmit={(event) => {
        event.preventDefault()
        saveToken(token.trim())
        props.onToken()
      }}
    >
      <strong>需要访问令牌 (token required)</strong>
      <span class="hint">服务器设置了 server.token。</span>
      <input
        type="password"
        name="token"
        autocomplete="current-password"
        placeholder="token"
        value={token}
        onInput={(event) => setToken(event.currentTarget.value)}
      />
      <button type="submit" class="primary">
        登录 (sign in)
      </button>
    </form>
  )
}
