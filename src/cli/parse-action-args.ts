/**
 * The arguments of a command whose first word is an action (`charpipe kb add FILE…`), with the
 * shared `--config FILE` option. An unknown action is printed with the usage.
 */
import { parseArgs } from 'node:util'

export interface ParseActionArgsOptions<Action extends string> {
  args: string[]
  /** The command's name, for the error, e.g. `kb`. */
  command: string
  actions: readonly Action[]
  usage: string
  /** Switches the command also takes (`--as-new`), besides `--config`. */
  switches?: readonly string[]
}

export interface ParseActionArgsResult<Action extends string> {
  action: Action
  /** The words after the action. */
  rest: string[]
  /** The `--config` value, when given. */
  configPath: string | undefined
  /** The switches given. */
  switches: ReadonlySet<string>
}

/** Undefined, once the error is printed, when the action is missing or unknown. */
export function parseActionArgs<Action extends string>(
  options: ParseActionArgsOptions<Action>,
): ParseActionArgsResult<Action> | undefined {
  const { values, positionals } = parseArgs({
    args: options.args,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      ...Object.fromEntries((options.switches ?? []).map((name) => [name, { type: 'boolean' as const }])),
    },
  })
  const [action, ...rest] = positionals
  if (!options.actions.includes(action as Action)) {
    const expected = [options.actions.slice(0, -1).join(', '), options.actions.at(-1)]
      .filter(Boolean)
      .join(' or ')
    console.error(
      `charpipe ${options.command}: expected ${expected}${action ? `, got "${action}"` : ''}\nusage: ${options.usage}`,
    )
    return undefined
  }
  const switches = new Set(
    (options.switches ?? []).filter((name) => (values as Record<string, unknown>)[name] === true),
  )
  return { action: action as Action, rest, configPath: values.config as string | undefined, switches }
}
