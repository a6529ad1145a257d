/** The API token the user typed in the login field, kept in localStorage across reloads. */
const storageKey = 'charpipe.token'

export function readToken(): string {
  try {
    return localStorage.getItem(storageKey) ?? ''
  } catch {
    return ''
  }
}

export function saveToken(token: string): void {
  try {
    if (token) localStorage.setItem(storageKey, token)
    else localStorage.removeItem(storageKey)
  } catch {
    // Storage can be off (private mode); the token then lives only for this page.
  }
}
