#!/usr/bin/env node
// Runs every bench/*.bench.ts in turn (each prints its own table). `npm run bench -- NAME` runs one:
// the bench of exactly that name, else every bench whose name starts with it (`cluster` is the
// cluster bench alone, not also the 30-minute `cluster-soak`).
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv[2]
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort()
const exact = benches.filter((name) => name === `${only}.bench.ts`)
const files = !only ? benches : exact.length > 0 ? exact : benches.filter((name) => name.startsWith(only))
let failed = 0
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit' })
  if (result.status !== 0) failed++
}
process.exitCode = failed ? 1 : 0
