/** `charpipe validate [--config FILE]`: checks a config file and lists every problem by field path. */
import { parseArgs } from 'node:util'
import { formatWarnings, loadCliConfig, runCommand } from '../load-cli-config.js'

export const summary = 'Check a config file; list every problem by field path'
export const usage = 'charpipe validate [--config FILE]'

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    const { values } = parseArgs({
      args,
      options: { config: { type: 'string' } },
    })
    const result = await loadCliConfig(values.config, { printWarnings: false })
    for (const line of formatWarnings(result.warnings)) console.log(line)
    console.log(
      result.fromFile ? `${result.path}: valid` : `${result.path} not found; the defaults are valid`,
    )
    return 0
  })
}
