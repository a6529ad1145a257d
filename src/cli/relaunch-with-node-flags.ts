/**
 * `charpipe serve` runs Node with a larger initial old generation (what `-Xms` is to a JVM server).
 * V8 starts with limits made for small scripts: while a server fills up with running turns, it runs
 * full mark-compact collections at 65-120 MB of heap, each a pause of 15-55 ms in the middle of
 * streaming, which is the tail of the sentence latency (BENCHMARKS.md "Server"). With 256 MB the
 * first full collection waits until the heap is really that big; memory is still only taken as it is
 * used. The process is started once more with the flag, unless the user sized the heap's start
 * themselves on the node command line (Node does not take these flags from NODE_OPTIONS).
 * The server process also gets glibc's `MALLOC_TRIM_THRESHOLD_` (serveAllocatorEnvironment): memory
 * let go after a burst (slow readers cut, large replies) goes back to the system instead of staying
 * in the allocator's free lists (docs/deployment.md, "Memory returned to the system").
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

export const serveNodeFlags = ['--initial-old-space-size=256']

const setsInitialHeap = (flag: string) => /^--initial[-_](old[-_]space|heap)[-_]size/.test(flag)

/** Whether this process runs without `serveNodeFlags` and without the user's own setting of them. */
export function needsServeNodeFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return !execArgv.some(setsInitialHeap)
}

/**
 * glibc returns the top of its heap to the system only past this many free bytes (default 128 KiB,
 * but raised on the fly up to 32 MiB once large blocks were freed); fixed at 128 KiB, freed memory
 * goes back. Measured: RSS 3 s after 30 paused readers closed 256-269 MB instead of 349-372 MB.
 */
const trimThresholdBytes = '131072'

/**
 * The allocator settings for the server process: `MALLOC_TRIM_THRESHOLD_` unless the user chose an
 * allocator setting (any `MALLOC_*` variable, or another allocator preloaded). Other allocators
 * (musl, jemalloc) ignore it.
 */
export function serveAllocatorEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  if (platform !== 'linux') return {}
  const chosen =
    Object.keys(environment).some((name) => name.startsWith('MALLOC_')) || !!environment.LD_PRELOAD
  return chosen ? {} : { MALLOC_TRIM_THRESHOLD_: trimThresholdBytes }
}

const forwardedSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Set in the server process's environment when its launcher holds an IPC channel to it. */
const launcherWatchVariable = 'CHARPIPE_SERVE_LAUNCHER'

/**
 * In the server process started by `relaunchWithServeNodeFlags`: calls `onGone` once when the
 * launcher's IPC channel closes (the launcher died, even by SIGKILL). The channel does not keep the
 * process alive. Returns whether there is a launcher to watch.
 */
export function watchLauncher(onGone: () => void): boolean {
  if (process.env[launcherWatchVariable] !== '1' || !process.channel) return false
  // Children of this process (none today) must not take the watch for their own.
  delete process.env[launcherWatchVariable]
  process.once('disconnect', onGone)
  process.channel.unref()
  return true
}

/** The message a server sends its launcher once it has begun to shut down. */
const stoppingMessage = 'charpipe:stopping'

/**
 * In the server process: tells the launcher (if any) that the shutdown has begun, so it forwards no
 * further stop signal. A signal that reached the server while Node tears the process down, after
 * the shutdown finished, would kill it by the signal (exit 130) instead of letting it exit 0.
 */
export function tellLauncherStopping(): void {
  if (process.channel && process.connected && process.send) process.send(stoppingMessage)
}

/**
 * Runs this same command line again in a child Node process with `serveNodeFlags`, passing the
 * terminal through and forwarding stop signals; resolves with the child's exit code.
 */
export function relaunchWithServeNodeFlags(): Promise<number> {
  const script = process.argv[1]!
  // The IPC channel is how the server notices that this process died without forwarding a signal
  // (SIGKILL, a crash): the channel closes and the server shuts down instead of keeping the port.
  const child = spawn(
    process.execPath,
    [...process.execArgv, ...serveNodeFlags, script, ...process.argv.slice(2)],
    {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, ...serveAllocatorEnvironment(), [launcherWatchVariable]: '1' },
    },
  )
  // Ctrl-C signals every process of the terminal's group: once the server says it is stopping,
  // it has its signal and a forwarded copy could only arrive while it exits.
  let serverStopping = false
  child.on('message', (message) => {
    if (message === stoppingMessage) serverStopping = true
  })
  let serverGone = false
  // The listeners stay until this process exits: a signal arriving after the server is gone must
  // not kill the launcher by its default action (they do not keep the process alive).
  const forward = (signal: NodeJS.Signals) => {
    if (!serverStopping && !serverGone) child.kill(signal)
  }
  for (const signal of forwardedSignals) process.on(signal, forward)
  return new Promise<number>((resolve) => {
    const done = (code: number) => {
      serverGone = true
      resolve(code)
    }
    child.once('error', (error) => {
      console.error(`charpipe serve: cannot start the server process: ${error.message}`)
      done(1)
    })
    // 'close', not 'exit': it comes after the IPC channel is read to its end, so a busy launcher
    // has seen the server's "stopping" by then even when it learnt of the exit first.
    child.once('close', (code, signal) => {
      // Once it said it is stopping, the server handles SIGINT and SIGTERM until its shutdown is
      // done: dying by one of them then means a late copy (Ctrl-C reaches the whole terminal group)
      // arrived while Node tore the finished process down. The shutdown itself completed.
      if (serverStopping && (signal === 'SIGINT' || signal === 'SIGTERM')) return done(0)
      done(code ?? 128 + (signal ? constants.signals[signal] : 0))
    })
  })
}
