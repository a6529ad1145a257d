/**
 * Test code stays out of the product's folders: outside `src/testing/`, only test files import
 * vitest. A suite or factory the tests share goes to `src/testing/` (or `test/support/` when only
 * the tests in test/ need it), never beside the product code it tests.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const source = join(import.meta.dirname, '..', 'src')
const importsVitest = /from ['"]vitest['"]|import\(['"]vitest['"]\)/

function findProductFilesImportingVitest(files: { path: string; text: string }[]): string[] {
  return files
    .filter(({ path }) => !/\.test\.tsx?$/.test(path) && !path.startsWith('src/testing/'))
    .filter(({ text }) => importsVitest.test(text))
    .map(({ path }) => path)
}

describe('where test code lives', () => {
  it('finds a product file that imports vitest (the check works)', () => {
    const files = [
      { path: 'src/memory/store-contract.ts', text: "import { describe } from 'vitest'\n" },
      { path: 'src/memory/store.test.ts', text: "import { describe } from 'vitest'\n" },
      { path: 'src/testing/store-contract.ts', text: "import { it } from 'vitest'\n" },
      { path: 'src/memory/store.ts', text: "export const vitest = 'no import'\n" },
    ]
    expect(findProductFilesImportingVitest(files)).toEqual(['src/memory/store-contract.ts'])
  })

  it('outside src/testing/, only tests import vitest', () => {
    const files = readdirSync(source, { recursive: true, encoding: 'utf8' })
      .filter((path) => /\.tsx?$/.test(path))
      .map((path) => ({
        path: `src/${path.replaceAll('\\', '/')}`,
        text: readFileSync(join(source, path), 'utf8'),
      }))
    expect(files.length).toBeGreaterThan(100)
    expect(findProductFilesImportingVitest(files)).toEqual([])
  })
})
