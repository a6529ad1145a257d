/**
 * Starts `charpipe mock-llm` in a child process, so the server's CPU time is not counted in the
 * client measurements, with a script whose default reply is `chunks` one-character chunks and no
 * delay.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface MockServerProcess {
  url: string
  stop(): void
}

export async function startMockServerProcess(chunks: number): Promise<MockServerProcess> {
  const folder = await mkdtemp(join(tmpdir(), 'charpipe-bench-'))
  const script = join(folder, 'script.json')
  const text = Array.from({ length: chunks }, (_, index) => '你好呀，今天过得怎么样？'[index % 12]).join('')
  await writeFile(script, JSON.stringify({ default: { text, chunkSize: 1 } }))
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/entry.ts', 'mock-llm', '--port', '0', '--script', script],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout?.on('data', (data: Buffer) => {
      output += data.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`mock-llm exited with ${code}`)))
  })
  return { url, stop: () => child.kill('SIGTERM') }
}
