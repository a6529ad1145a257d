/**
 * The peer bench's mock model server: `charpipe mock-llm` in a child process (so its CPU is not
 * counted in the client's), replaying `text` one character per chunk, in the OpenAI (`/v1/chat/completions`) and the
 * Anthropic (`/v1/messages`) wire formats alike. With no delay the chunks leave back to back and one
 * network read carries many; `delayMs` paces them as a model does, one chunk per read.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface PeerMock {
  url: string
  stop(): void
}

export async function startPeerMock(text: string, delayMs = 0): Promise<PeerMock> {
  const folder = await mkdtemp(join(tmpdir(), 'charpipe-peers-'))
  const script = join(folder, 'script.json')
  await writeFile(script, JSON.stringify({ default: { text, chunkSize: 1, delayMs } }))
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/entry.ts', 'mock-llm', '--port', '0', '--script', script],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`mock-llm exited with ${code}`)))
  })
  return { url, stop: () => child.kill('SIGTERM') }
}
