/** Reads a `text/event-stream` answer into its messages (`event` and parsed `data`). */
export interface SseMessage {
  event: string | undefined
  data: string
}

export async function readSse(response: Response): Promise<SseMessage[]> {
  const text = await response.text()
  const messages: SseMessage[] = []
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue
    let event: string | undefined
    const data: string[] = []
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim()
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
    }
    messages.push({ event, data: data.join('\n') })
  }
  return messages
}
