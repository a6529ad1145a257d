/**
 * Lists from the API: a bare array, or an object holding the array under a known key
 * (`{results}`, `{items}`, `{messages}` …), so the page reads either shape.
 */
const listKeys = [
  'results',
  'items',
  'memories',
  'messages',
  'changes',
  'history',
  'documents',
  'providers',
  'checks',
]

export function readResponseList<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[]
  if (body && typeof body === 'object') {
    for (const key of listKeys) {
      const value = (body as Record<string, unknown>)[key]
      if (Array.isArray(value)) return value as T[]
    }
  }
  return []
}

/** A time that may come as milliseconds, seconds or an ISO string, shown in local time. */
export function formatTime(value: unknown): string {
  if (value === undefined || value === null || value === '') return ''
  const date =
    typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(String(value))
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString()
}

/** The text of a message whose content is a string or a list of parts. */
export function readContentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content)
  return content
    .map((part: { type?: string; text?: string; url?: string; assetRef?: string }) =>
      part.type === 'text'
        ? (part.text ?? '')
        : `[${part.type ?? 'part'}: ${part.url?.slice(0, 60) ?? part.assetRef ?? ''}]`,
    )
    .join('')
}
