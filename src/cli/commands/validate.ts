/** `charpipe validate [--config FILE]`: checks a config file and lists every problem by field path. */
import { parseArgs } from 'node:util'
import { DEFAULT_CONFIG_PATH, loadCliConfig, runCommand } from '../load-cli-config.js'

export const summary = 'Check a config file; list every problem by field path'
export const usage = 'charpipe validate [--config FILE]'

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    const { values } = parseArgs({
      args,
      options: { config: { type: 'string', default: DEFAULT_CONFIG_PATH } },
    })
    const result = await loadCliConfig(values.config)
    for (const warning of result.warnings) console.log(`warning: ${warning.path}: ${warning.message}`)
    console.log(
      result.fromFile ? `${result.path}: valid` : `${result.path} not found; the defaults are valid`,
    )
    return 0
  })
}
