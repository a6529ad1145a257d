import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createGeneratedFiles } from '../scripts/generate-config-docs.js'

const root = join(import.meta.dirname, '..')

describe('files generated from the config schema', () => {
  for (const [path, expected] of Object.entries(createGeneratedFiles())) {
    it(`${path} is up to date (npm run generate)`, async () => {
      expect(await readFile(join(root, path), 'utf8')).toBe(expected)
    })
  }
})
