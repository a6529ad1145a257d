/** Runs `charpipe` from source as a child process (stdin given, stdout and stderr collected). */
import { spawn } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cliArguments } from './cli-command.js'
import { readEmptyWorkingFolder } from './empty-working-folder.js'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

export interface RunCliResult {
  code: number | null
  stdout: string
  stderr: string
}

export function runCli(args: string[], stdin = ''): Promise<RunCliResult> {
  const child = spawn(process.execPath, cliArguments(args), { cwd: readEmptyWorkingFolder() })
  child.stdin.end(stdin)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })))
}
