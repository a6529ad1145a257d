/**
 * Cards in and out of the page: a dropped or picked `.png` / `.json` goes to
 * `POST /api/characters/import` as it is; an export is fetched with the page's token and saved
 * as a download (a plain link would not carry the token).
 */
import { ApiError, buildAuthHeaders } from './api-client.js'

/** Sends a card file; resolves with the id the server gave the character. */
export async function importCharacterCardFile(file: File): Promise<string> {
  const isPng = file.type === 'image/png' || file.name.toLowerCase().endsWith('.png')
  const response = await fetch('/api/characters/import', {
    method: 'POST',
    headers: { ...buildAuthHeaders(), 'content-type': isPng ? 'image/png' : 'application/json' },
    body: file,
  })
  const body = (await response.json().catch(() => ({}))) as {
    id?: string
    error?: { code?: string; message?: string }
  }
  if (!response.ok || !body.id) {
    throw new ApiError({
      status: response.status,
      code: body.error?.code ?? 'http',
      message: body.error?.message ?? `HTTP ${response.status}`,
    })
  }
  return body.id
}

/** Downloads the character's V3 card as `<id>.json` or `<id>.png`. */
export async function exportCharacterCardFile(id: string, format: 'json' | 'png'): Promise<void> {
  const response = await fetch(`/api/characters/${encodeURIComponent(id)}/card?format=${format}`, {
    headers: buildAuthHeaders(),
  })
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } }
    throw new ApiError({
      status: response.status,
      code: 'http',
      message: body.error?.message ?? `HTTP ${response.status}`,
    })
  }
  const url = URL.createObjectURL(await response.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = `${id}.${format}`
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
