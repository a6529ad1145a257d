/**
 * The picture of a character the page can show: its avatar when that is a URL or a data URI, else
 * the picture the server keeps for it (`GET /api/characters/:id/avatar`, an imported card's image),
 * fetched with the page's token and shown from a blob URL. Undefined while loading or when it has none.
 * The default character has no kept picture (the server serves only the avatar its block gives), so
 * nothing is asked for it: a page load would otherwise log a 404.
 */
import { useEffect, useState } from 'preact/hooks'
import { buildAuthHeaders } from './api-client.js'
import type { PageCharacter } from './list-page-characters.js'

export function useCharacterPicture(character: PageCharacter | undefined): string | undefined {
  const [fetched, setFetched] = useState<{ id: string; url: string } | undefined>(undefined)
  const avatar = character?.avatar ?? ''
  const direct = /^(https?:|data:image\/)/i.test(avatar) ? avatar : undefined
  const id = character?.isDefault ? undefined : character?.id
  useEffect(() => {
    if (direct || !id) return
    let url: string | undefined
    let cancelled = false
    fetch(`/api/characters/${encodeURIComponent(id)}/avatar`, { headers: buildAuthHeaders() })
      .then(async (response) => {
        if (!response.ok || cancelled) return
        url = URL.createObjectURL(await response.blob())
        if (cancelled) URL.revokeObjectURL(url)
        else setFetched({ id, url })
      })
      .catch(() => undefined)
    return () => {
      cancelled = true
      if (url) URL.revokeObjectURL(url)
      setFetched(undefined)
    }
  }, [direct, id])
  return direct ?? (fetched && fetched.id === id ? fetched.url : undefined)
}
