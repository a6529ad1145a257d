/**
 * One real turn of `charpipe serve` on whichever Node runs this script: the built CLI starts in an
 * empty folder (no config: the builtin mock model, the SQLite history), answers one
 * `/v1/chat/completions` request, serves the stored turn back from the session's history, and exits
 * 0 on SIGTERM. CI runs it on every Node the project is tested on, so a native binding that cannot
 * load, or aborts the process, fails here as it would for a user.
 *
 * Usage: `node scripts/check-serve-turn.js` (needs `dist/`, i.e. `npm run build`, first).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..')
// A bound on the whole check: a server that never listens or never exits fails instead of hanging.
const deadlineMs = 120_000

const folder = mkdtempSync(join(tmpdir(), 'charpipe-serve-turn-'))
const serve = spawn(process.execPath, [join(repoRoot, 'bin', 'charpipe.js'), 'serve', '--port', '0'], {
  cwd: folder,
  env: { ...process.env, NO_COLOR: '1' },
  stdio: ['ignore', 'pipe', 'pipe'],
})
let stdout = ''
let stderr = ''
serve.stdout.on('data', (chunk) => {
  stdout += chunk
})
serve.stderr.on('data', (chunk) => {
  stderr += chunk
})
const exited = new Promise((resolve) => serve.on('close', (code, signal) => resolve({ code, signal })))
const deadline = setTimeout(() => fail(`no result within ${deadlineMs} ms`), deadlineMs)

function fail(reason) {
  console.error(`serve turn on Node ${process.versions.node}: ${reason}`)
  console.error(`--- serve stdout ---\n${stdout}\n--- serve stderr ---\n${stderr}`)
  serve.kill('SIGKILL')
  rmSync(folder, { recursive: true, force: true })
  process.exit(1)
}

async function waitForUrl() {
  for (;;) {
    const match = stdout.match(/listening on (http:\/\/\S+)/)
    if (match) return match[1]
    const result = await Promise.race([exited, new Promise((resolve) => serve.stdout.once('data', resolve))])
    if (result && typeof result === 'object' && 'code' in result) fail(`serve exited before listening`)
  }
}

try {
  const url = await waitForUrl()
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-id': 'serve-turn' },
    body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hello' }] }),
  })
  const body = await response.json()
  const text = body?.choices?.[0]?.message?.content
  if (response.status !== 200 || typeof text !== 'string' || text.length === 0)
    fail(`the turn answered ${response.status} ${JSON.stringify(body)}`)
  const stored = await fetch(`${url}/api/sessions/serve-turn/messages`)
  const messages = JSON.stringify(await stored.json())
  if (!stored.ok || !messages.includes(text.slice(0, 10))) fail(`the turn was not stored: ${messages}`)
  if (!existsSync(join(folder, 'data', 'charpipe.db'))) fail('no SQLite file at data/charpipe.db')
  serve.kill('SIGTERM')
  const { code, signal } = await exited
  if (code !== 0) fail(`serve exited with ${code ?? signal} after SIGTERM`)
  clearTimeout(deadline)
  rmSync(folder, { recursive: true, force: true })
  console.log(
    `serve turn on Node ${process.versions.node}: answered ${JSON.stringify(text.slice(0, 40))}, exited 0`,
  )
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error))
}
