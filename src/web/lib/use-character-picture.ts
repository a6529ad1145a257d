/**
 * The picture of a character the page can show: its avatar when that is a URL or a data URI, else
 * the picture the server keeps for it (`GET /api/characters/:id/avatar`, an imported card's image),
 * fetched with the page's token and shown from a blob URL. Undefined while loading or when it has none.
 * The server's character list says which characters have a kept picture: only those are asked for,
 * so a character without one (the default character, a card imported without a picture) costs no 404.
 */
import { useEffect, useState } from 'preact/hooks'
import { buildAuthHeaders } from './api-client.js'
import type { PageCharacter } from './list-page-characters.js'

export function useCharacterPicture(character: PageCharacter | undefined): string | undefined {
  const [fetched, setFetched] = useState<{ id: string; url: string } | undefined>(undefined)
  const avatar = character?.avatar ?? ''
  const direct = /^(https?:|data:image\/)/i.test(avatar) ? avatar : undefined
  const id = character?.id
  useEffect(() => {
    if (direct || !id) return
    let url: string | undefined
    let cancelled = false
    const served = `/api/characters/${encodeURIComponent(id)}/avatar`
    fetch('/api/characters', { headers: buildAuthHeaders() })
      .then(async (listing) => {
        if (!listing.ok || cancelled) return undefined
        const { characters } = (await listing.json()) as { characters?: { id: string; avatar?: string }[] }
        const kept = characters?.find((each) => each.id === id)?.avatar === served
        return kept && !cancelled ? fetch(served, { headers: buildAuthHeaders() }) : undefined
      })
      .then(async (response) => {
        if (!response?.ok || cancelled) return
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
