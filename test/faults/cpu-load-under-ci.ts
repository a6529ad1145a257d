/**
 * Imported by a fault suite: under `CI=true` two busy loops (child processes spinning on a core
 * each) run for the suite's whole duration, so a green run means its guarantees hold on a busy
 * server, where timings stretch, not only on a quiet one. `CHARPIPE_FAULT_CPU_LOAD=0` turns them
 * off, `=1` on outside CI.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { afterAll, beforeAll } from 'vitest'

const busyLoops = 2
const wanted = process.env.CHARPIPE_FAULT_CPU_LOAD ?? (process.env.CI === 'true' ? '1' : '0')

const loops: ChildProcess[] = []

beforeAll(() => {
  if (wanted !== '1') return
  for (let index = 0; index < busyLoops; index++) {
    const loop = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    // A loop that could not start only makes the run quieter; the suite itself says nothing of it.
    loop.on('error', () => {})
    loops.push(loop)
  }
})

afterAll(() => {
  for (const loop of loops.splice(0)) loop.kill('SIGKILL')
})
