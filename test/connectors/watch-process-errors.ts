/**
 * Records what would end the process: an exception no listener caught and a rejection no one
 * handled. A connector test asserts the list is empty after feeding it what it cannot read.
 */
export interface ProcessErrors {
  errors: unknown[]
  stop(): void
}

export function watchProcessErrors(): ProcessErrors {
  const errors: unknown[] = []
  const record = (error: unknown) => errors.push(error)
  process.on('uncaughtException', record)
  process.on('unhandledRejection', record)
  return {
    errors,
    stop() {
      process.off('uncaughtException', record)
      process.off('unhandledRejection', record)
    },
  }
}
