/**
 * The last lines a stdio MCP server wrote to its stderr, kept so a failure can say why ("None of the
 * specified directories are accessible") rather than only `Connection closed`. Bounded: a few
 * lines, each cut, and the unfinished line cut too, whatever the server writes. What it hands out is
 * scrubbed of the server's own secrets (its env values and headers) and of every configured or
 * key-shaped secret, since servers print their credentials when starting.
 */
import type { McpServerConfig } from '../../config/schema.js'
import { scrubSecrets } from '../../shared/logger.js'
import { redactText } from '../../shared/redact.js'

export interface OutputTail {
  /** A chunk of output as it arrived; complete lines go to `onLine`. */
  write(chunk: string): void
  /** The kept lines, oldest first, scrubbed. */
  lines(): string[]
  /** `text` without the secrets the lines are scrubbed of (for an error message beside them). */
  scrub(text: string): string
  clear(): void
}

export interface CreateOutputTailOptions {
  /** Values that must not be shown (the server's env values and headers). */
  secrets: readonly string[]
  /** Each complete, non-empty line, scrubbed (for the log). */
  onLine?(line: string): void
  /** @default 8 */
  maxLines?: number
  /** @default 400 */
  maxLineChars?: number
}

export function createOutputTail(options: CreateOutputTailOptions): OutputTail {
  const maxLines = options.maxLines ?? 8
  const maxLineChars = options.maxLineChars ?? 400
  const scrub = (line: string) => scrubSecrets(redactText(line, options.secrets))
  let kept: string[] = []
  let partial = ''

  const keep = (line: string) => {
    const trimmed = line.trimEnd()
    if (!trimmed.trim()) return
    const cut = trimmed.length > maxLineChars ? `${trimmed.slice(0, maxLineChars)}…` : trimmed
    const scrubbed = scrub(cut)
    kept.push(scrubbed)
    if (kept.length > maxLines) kept.shift()
    options.onLine?.(scrubbed)
  }

  return {
    write(chunk) {
      const parts = (partial + chunk).split('\n')
      // Past its cut an unfinished line is not needed: only its start is ever shown.
      partial = (parts.pop() ?? '').slice(0, maxLineChars + 1)
      for (const line of parts.slice(-maxLines)) keep(line)
    },
    scrub,
    lines: () => (partial.trim() ? [...kept, scrub(partial.slice(0, maxLineChars))] : [...kept]),
    clear() {
      kept = []
      partial = ''
    },
  }
}

/** A failure's message with the server's last output after it, when it wrote any. */
export function describeMcpFailure(error: unknown, tail: OutputTail | undefined): string {
  const raw = error instanceof Error ? error.message || error.name : String(error)
  const message = tail ? tail.scrub(raw) : raw
  const lines = tail?.lines() ?? []
  return lines.length > 0 ? `${message}; the server's last output: ${lines.join(' | ')}` : message
}

/** The values of a server's settings its output must not show: its env values and headers. */
export function listServerSecrets(config: McpServerConfig): string[] {
  return 'command' in config ? Object.values(config.env) : Object.values(config.headers)
}
