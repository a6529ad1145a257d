/**
 * Runs the CLI from source (`node --import tsx src/cli/entry.ts <command>`), as tests do; the
 * published bin runs the built `dist/cli/main.js` instead.
 */
import { main } from './main.js'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error))
    process.exitCode = 1
  },
)
