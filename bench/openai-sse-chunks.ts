/**
 * An OpenAI chat-completion stream as prepared SSE text, one string per write, so a mock replaying it
 * adds as little CPU as it can: the role chunk, one chunk per content piece, and the finish chunk and
 * `[DONE]` in the same write as the last piece (the last sentence is only complete when the stream
 * ends).
 */
const encodeChunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'bench',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'bench',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`

export function composeOpenAISseChunks(pieces: string[]): string[] {
  const chunks = [
    encodeChunk({ role: 'assistant', content: '' }),
    ...pieces.map((content) => encodeChunk({ content })),
  ]
  chunks[chunks.length - 1] += `${encodeChunk({}, 'stop')}data: [DONE]\n\n`
  return chunks
}
