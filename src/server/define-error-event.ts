/**
 * `@hono/node-ws` reports a socket error (a frame past `maxPayload`, a broken connection) by
 * constructing `ErrorEvent`, which Node 20 does not have: the report itself threw
 * `ReferenceError: ErrorEvent is not defined` and the real cause was lost. This defines the
 * standard shape where it is missing, once, so the error reaches `onError` and is logged clearly.
 */
class ErrorEventShim extends Event {
  readonly error: unknown
  readonly message: string

  constructor(type: string, init: { error?: unknown; message?: string } = {}) {
    super(type)
    this.error = init.error
    this.message = init.message ?? (init.error instanceof Error ? init.error.message : '')
  }
}

export function defineErrorEvent(): void {
  const scope = globalThis as { ErrorEvent?: unknown }
  scope.ErrorEvent ??= ErrorEventShim
}
