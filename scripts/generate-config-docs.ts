/**
 * Writes config.schema.json and docs/config.md from the zod schema.
 * `npm run generate` writes them; `--check` exits non-zero when the checked-in copies are stale.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createConfigJsonSchema, createConfigReferenceMarkdown } from '../src/config/config-reference.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

export function createGeneratedFiles(): Record<string, string> {
  return {
    'config.schema.json': `${JSON.stringify(createConfigJsonSchema(), null, 2)}\n`,
    'docs/config.md': createConfigReferenceMarkdown(),
  }
}

async function main() {
  const check = process.argv.includes('--check')
  let stale = 0
  for (const [path, content] of Object.entries(createGeneratedFiles())) {
    const target = join(root, path)
    if (check) {
      const current = await readFile(target, 'utf8').catch(() => '')
      if (current !== content) {
        console.error(`${path} is out of date: run npm run generate`)
        stale++
      }
    } else {
      await writeFile(target, content)
      console.log(`wrote ${path}`)
    }
  }
  process.exitCode = stale ? 1 : 0
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
