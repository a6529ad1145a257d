/**
 * `charpipe preview [--config FILE] [--session ID] [--character ID] [--emotion LABEL] [--json] TEXT`:
 * prints the context that would be sent to the model for TEXT (to the default character, or the one
 * named) — messages with their source tags and token counts, and the processors' logs — without
 * calling the model; readable by default, the PreviewResult as JSON with `--json`.
 */
import { parseArgs } from 'node:util'
import { createCharpipe } from '../../engine/index.js'
import { CharpipeError } from '../../shared/errors.js'
import { formatPreviewResult } from '../format-preview-result.js'
import { loadCliConfig, runCommand } from '../load-cli-config.js'

export const summary = 'Print the assembled context for a text, without calling the model'
export const usage =
  'charpipe preview [--config FILE] [--session ID] [--character ID] [--emotion LABEL] [--json] TEXT\n\n' +
  '  --json  print the result as JSON (messages, total_tokens, logs)'

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    let parsed: {
      values: { config?: string; session: string; character?: string; emotion?: string; json?: boolean }
      positionals: string[]
    }
    try {
      parsed = parseArgs({
        args,
        allowPositionals: true,
        options: {
          config: { type: 'string' },
          session: { type: 'string', default: 'default' },
          emotion: { type: 'string' },
          character: { type: 'string' },
          json: { type: 'boolean' },
        },
      }) as typeof parsed
    } catch (error) {
      console.error(`charpipe preview: ${(error as Error).message}\nusage: ${usage}`)
      return 2
    }
    const text = parsed.positionals.join(' ')
    if (!text.trim()) {
      console.error(`charpipe preview: TEXT is missing\nusage: ${usage}`)
      return 2
    }
    // The engine logs the config's warnings when it reads the config: printed once, by it.
    const { config } = await loadCliConfig(parsed.values.config, { printWarnings: false })
    try {
      const charpipe = await createCharpipe(config)
      try {
        const { session, emotion, character } = parsed.values
        const result = await charpipe.inspect.preview({
          session,
          text,
          ...(emotion ? { emotion } : {}),
          ...(character ? { character } : {}),
        })
        console.log(parsed.values.json ? JSON.stringify(result, null, 2) : formatPreviewResult(result))
      } finally {
        await charpipe.close()
      }
    } catch (error) {
      console.error(
        CharpipeError.isInstance(error) ? error.message : `charpipe preview: ${(error as Error).message}`,
      )
      return CharpipeError.isInstance(error) && error.code === 'invalid_config' ? 2 : 1
    }
    return 0
  })
}
