#!/usr/bin/env node
// Runs every bench/*.bench.ts in turn (each prints its own table). `npm run bench -- NAME` runs one.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv[2]
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => !only || name.startsWith(only))
  .sort()
let failed = 0
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit' })
  if (result.status !== 0) failed++
}
process.exitCode = failed ? 1 : 0
