/** `charpipe mock-llm`: the mock model server as a command (the server itself: start-mock-model-server.test.ts). */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliArguments } from '../support/cli-command.js'

describe('charpipe mock-llm', () => {
  it('prints its listening line and serves requests', async () => {
    const root = join(import.meta.dirname, '..', '..')
    const child = spawn(process.execPath, cliArguments(['mock-llm', '--port', '0']), {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = ''
        child.stdout.on('data', (data: Buffer) => {
          output += data.toString()
          const match = /mock model server listening on (http:\/\/[\d.]+:\d+)/.exec(output)
          if (match) resolve(match[1]!)
        })
        child.once('exit', (code) => reject(new Error(`mock-llm exited with ${code}`)))
      })
      const response = await fetch(`${url}/v1/models`)
      expect(response.status).toBe(200)
    } finally {
      child.kill('SIGTERM')
    }
  })
})
