/** Picks the session to talk in; sessions used before are remembered in localStorage. */
import { useState } from 'preact/hooks'
import { translate } from '../lib/i18n.js'

const storageKey = 'charpipe.sessions'

function readKnownSessions(): string[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(storageKey) ?? '[]')
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : []
  } catch {
    return []
  }
}

export function rememberSession(session: string): void {
  try {
    const known = readKnownSessions().filter((item) => item !== session)
    localStorage.setItem(storageKey, JSON.stringify([session, ...known].slice(0, 20)))
  } catch {
    // Storage can be off; the picker then only knows the current session.
  }
}

export function SessionPicker(props: { session: string; onChange(session: string): void }) {
  const [draft, setDraft] = useState(props.session)
  const known = readKnownSessions()
  return (
    <form
      class="session-picker"
      onSubmit={(event) => {
        event.preventDefault()
        const session = draft.trim() || 'default'
        rememberSession(session)
        props.onChange(session)
      }}
    >
      <label>
        {translate('chat.session')}{' '}
        <input
          type="text"
          name="session"
          list="known-sessions"
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
      </label>
      <datalist id="known-sessions">
        {known.map((session) => (
          <option value={session} />
        ))}
      </datalist>
      <button type="submit" class="small">
        {translate('chat.switchSession')}
      </button>
    </form>
  )
}
