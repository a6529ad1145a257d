/**
 * YAML text to a plain object, the first step of reading config.yaml or a character file of
 * `characters_dir`. On its own so that `characters/` can read YAML without importing the loader
 * that reads `characters/` (no import cycle).
 */
import { createRequire } from 'node:module'
import { InvalidConfigError } from '../shared/errors.js'

// The YAML parser is loaded with the first config file read: library users who pass a config
// object never need it.
const require = createRequire(import.meta.url)
let yaml: typeof import('yaml') | undefined

/**
 * YAML text to a plain object; syntax errors become an InvalidConfigError with line numbers, and so
 * do a list or a mapping used as a key, an alias that names no anchor and an alias inside the node
 * it names (`a: &a {b: *a}`), which would make a cyclic object that every later walk of the config
 * follows forever; a document that expands past the parser's alias bound (a "billion laughs" file)
 * is refused whole.
 */
export function parseConfigText(text: string, source = 'config.yaml'): Record<string, unknown> {
  yaml ??= require('yaml') as typeof import('yaml')
  const lineCounter = new yaml.LineCounter()
  // Keys as written: a list or a mapping as a key is an error (the parser would otherwise turn it
  // into text and warn on stderr), and `null:` and `~:` stay two keys instead of one empty one.
  const document = yaml.parseDocument(text, { prettyErrors: true, lineCounter, stringKeys: true })
  const refuse = (path: string, message: string): never => {
    throw new InvalidConfigError([{ path, message }], { source })
  }
  if (document.errors.length > 0) {
    throw new InvalidConfigError(
      document.errors.map((error) => ({
        path: error.linePos ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '',
        message:
          error.code === 'NON_STRING_KEY'
            ? 'a key must be a name, not a list or a mapping'
            : (error.message.split('\n')[0] ?? error.message),
      })),
      { source },
    )
  }
  let problem: AliasProblem | undefined
  let value: unknown
  try {
    problem = findAliasProblem(document)
    if (!problem) value = document.toJS() ?? {}
  } catch (error) {
    // The alias bound ("Excessive alias count …"), or nesting past the stack.
    refuse('', `the file cannot be read: ${(error as Error).message}`)
  }
  if (problem) {
    const { line, col } = lineCounter.linePos(problem.alias.range?.[0] ?? 0)
    refuse(`line ${line}, column ${col}`, problem.message)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse('', 'the config must be a mapping of sections (server, llm, character, …)')
  return value as Record<string, unknown>
}

interface AliasProblem {
  alias: import('yaml').Alias
  message: string
}

/** The first alias that names no anchor before it, or sits inside the node it names. */
function findAliasProblem(document: import('yaml').Document): AliasProblem | undefined {
  let found: AliasProblem | undefined
  yaml!.visit(document, {
    Alias(_key, alias, path) {
      const target = alias.resolve(document)
      if (target === undefined)
        found = { alias, message: `the alias *${alias.source} names no anchor before it` }
      else if (path.includes(target as never))
        found = { alias, message: `the alias *${alias.source} is inside the node it names (a cycle)` }
      return found ? yaml!.visit.BREAK : undefined
    },
  })
  return found
}
