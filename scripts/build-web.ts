/**
 * Builds the web page into `dist/web/`: the Preact app bundled by esbuild (`app.js`, `app.css`), the
 * HTML shell, and `config.schema.json` generated from the one zod schema so the page's form labels,
 * descriptions and defaults come from `src/config/schema.ts` and nowhere else.
 *
 * Usage: `tsx scripts/build-web.ts [--out DIR]` (default `dist/web`).
 */
import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { z } from 'zod'
import { configSchema } from '../src/config/schema.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const sourceDir = path.join(repoRoot, 'src', 'web')

export interface BuildWebOptions {
  /** Output folder; default `dist/web` under the repository root. */
  outDir?: string
}

export interface BuildWebResult {
  outDir: string
  /** Bytes of each written file, raw and gzipped. */
  files: { name: string; bytes: number; gzipBytes: number }[]
}

/** Bundles the page and writes the config JSON Schema beside it. */
export async function buildWeb(options: BuildWebOptions = {}): Promise<BuildWebResult> {
  const outDir = path.resolve(options.outDir ?? path.join(repoRoot, 'dist', 'web'))
  await mkdir(outDir, { recursive: true })
  await build({
    entryPoints: { app: path.join(sourceDir, 'main.tsx') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    // Chinese text as UTF-8 bytes (3 each) rather than \u escapes (6 each): the page is served as UTF-8.
    charset: 'utf8',
    logLevel: 'warning',
  })
  await copyFile(path.join(sourceDir, 'index.html'), path.join(outDir, 'index.html'))
  const schema = z.toJSONSchema(configSchema, { io: 'input' })
  // Written through a temporary name so a server reading the folder never sees half a file.
  const schemaPath = path.join(outDir, 'config.schema.json')
  const temporaryPath = `${schemaPath}.${process.pid}.tmp`
  await writeFile(temporaryPath, `${JSON.stringify(schema, null, 2)}\n`)
  await rename(temporaryPath, schemaPath)

  const files: BuildWebResult['files'] = []
  for (const name of ['index.html', 'app.js', 'app.css', 'config.schema.json']) {
    const content = await readFile(path.join(outDir, name))
    files.push({ name, bytes: content.length, gzipBytes: gzipSync(content).length })
  }
  return { outDir, files }
}

function readOutDirArgument(argv: string[]): string | undefined {
  const index = argv.indexOf('--out')
  if (index === -1) return undefined
  const value = argv[index + 1]
  if (!value) throw new Error('build-web: --out needs a folder')
  return value
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain) {
  const result = await buildWeb({ outDir: readOutDirArgument(process.argv.slice(2)) })
  for (const file of result.files) {
    console.log(`${file.name.padEnd(20)} ${String(file.bytes).padStart(8)} B  gzip ${file.gzipBytes} B`)
  }
  console.log(`web page built into ${path.relative(repoRoot, result.outDir) || '.'}`)
}
