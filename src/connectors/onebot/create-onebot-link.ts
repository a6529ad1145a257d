/**
 * One WebSocket to a OneBot implementation, whichever side dialled: frames in are events (handed
 * on) or responses to our API calls (paired by `echo`); calls out get a deadline so a silent
 * implementation never holds a reply forever. Closing the link fails the calls still waiting.
 */
import { isApiResponse, type OnebotApiResponse } from './onebot-types.js'
import { readOnebotText } from './read-onebot-field.js'

export interface CreateOnebotLinkOptions {
  send: (text: string) => void
  onEvent: (event: Record<string, unknown>) => void
  /** A frame that is not JSON or not an object: named for the connector's log. */
  onBadFrame?: (problem: string) => void
  /** Longest wait for an API response. @default 10_000 */
  callTimeoutMs?: number
}

export interface OnebotLink {
  receive(text: string): void
  call(action: string, params: Record<string, unknown>): Promise<OnebotApiResponse>
  /** Fails every waiting call with `reason`. */
  close(reason: string): void
}

class OnebotCallError extends Error {
  constructor(
    message: string,
    readonly retcode?: number,
  ) {
    super(message)
    this.name = 'OnebotCallError'
  }
}

interface PendingCall {
  resolve: (response: OnebotApiResponse) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

let echoCounter = 0

export function createOnebotLink(options: CreateOnebotLinkOptions): OnebotLink {
  const pending = new Map<string, PendingCall>()
  const timeoutMs = options.callTimeoutMs ?? 10_000
  let closedReason: string | undefined

  return {
    receive(text) {
      let frame: unknown
      try {
        frame = JSON.parse(text)
      } catch {
        options.onBadFrame?.('a frame that is not JSON')
        return
      }
      if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
        options.onBadFrame?.('a frame that is not a JSON object')
        return
      }
      const record = frame as Record<string, unknown>
      if (isApiResponse(record)) {
        // Our echoes are strings: any other echo answers no call of ours.
        const echo = typeof record.echo === 'string' ? record.echo : undefined
        const call = echo === undefined ? undefined : pending.get(echo)
        if (!call || echo === undefined) return
        pending.delete(echo)
        clearTimeout(call.timer)
        call.resolve(record as unknown as OnebotApiResponse)
        return
      }
      options.onEvent(record)
    },
    call(action, params) {
      if (closedReason !== undefined) return Promise.reject(new OnebotCallError(closedReason))
      echoCounter += 1
      const echo = `charpipe-${echoCounter}`
      return new Promise<OnebotApiResponse>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(echo)
          reject(new OnebotCallError(`${action}: no response within ${timeoutMs} ms`))
        }, timeoutMs)
        pending.set(echo, { resolve, reject, timer })
        try {
          options.send(JSON.stringify({ action, params, echo }))
        } catch (error) {
          pending.delete(echo)
          clearTimeout(timer)
          reject(new OnebotCallError(`${action}: ${(error as Error).message}`))
        }
      }).then((response) => {
        if (response.status === 'failed' || (response.retcode !== 0 && response.retcode !== 1)) {
          // Read as text only: a wording of any other JSON kind is not turned into text by calling it.
          const wording = readOnebotText(response.wording) || readOnebotText(response.message)
          throw new OnebotCallError(
            `${action} failed: retcode ${readOnebotText(response.retcode) || 'missing'}${wording ? ` (${wording.slice(0, 300)})` : ''}`,
            typeof response.retcode === 'number' ? response.retcode : undefined,
          )
        }
        return response
      })
    },
    close(reason) {
      closedReason = reason
      for (const [echo, call] of pending) {
        clearTimeout(call.timer)
        pending.delete(echo)
        call.reject(new OnebotCallError(reason))
      }
    },
  }
}
