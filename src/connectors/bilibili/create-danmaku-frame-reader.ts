/**
 * One danmaku connection's frames read under a budget: each frame within the per-frame limits
 * (danmaku-packet.ts), and all frames of one second together within `maxInflatedBytesPerSecond`, so
 * a flood of frames that each pass the frame limits still cannot keep the process inflating. A frame
 * past either is refused with a reason (the connector counts it and warns, rate-limited), never read.
 */
import {
  DanmakuFrameError,
  type DanmakuFrameLimits,
  type DanmakuPacket,
  danmakuFrameLimits,
  readDanmakuFrame,
} from './danmaku-packet.js'

/**
 * Inflated bytes one connection may read in a second, all frames together: twice a frame's own
 * allowance, a thousand times what a busy room sends.
 */
const maxInflatedBytesPerSecond = 2 * danmakuFrameLimits.maxInflatedBytes

export type DanmakuFrameReadResult =
  | { ok: true; packets: DanmakuPacket[]; inflatedBytes: number }
  | { ok: false; reason: string; detail: string; inflatedBytes: number }

export interface DanmakuFrameReader {
  read(frame: Buffer): DanmakuFrameReadResult
}

export interface CreateDanmakuFrameReaderOptions {
  /** The clock seconds are read from. */
  now: () => number
  /** @default danmakuFrameLimits */
  limits?: DanmakuFrameLimits
  /** @default maxInflatedBytesPerSecond */
  maxInflatedBytesPerSecond?: number
}

export function createDanmakuFrameReader(options: CreateDanmakuFrameReaderOptions): DanmakuFrameReader {
  const limits = options.limits ?? danmakuFrameLimits
  const perSecond = options.maxInflatedBytesPerSecond ?? maxInflatedBytesPerSecond
  let second = Number.NaN
  let spent = 0
  return {
    read(frame) {
      const now = Math.floor(options.now() / 1000)
      if (now !== second) {
        second = now
        spent = 0
      }
      const left = perSecond - spent
      if (left <= 0)
        return {
          ok: false,
          reason: 'inflation_budget',
          detail: `danmaku frames inflated past ${perSecond} bytes this second`,
          inflatedBytes: 0,
        }
      // A frame may take what is left of the second, never more than a frame's own allowance.
      const allowance = Math.min(limits.maxInflatedBytes, left)
      try {
        const decoded = readDanmakuFrame(frame, { ...limits, maxInflatedBytes: allowance })
        spent += decoded.inflatedBytes
        return { ok: true, packets: decoded.packets, inflatedBytes: decoded.inflatedBytes }
      } catch (error) {
        if (!(error instanceof DanmakuFrameError)) throw error
        // What a refused frame inflated before it was refused is spent all the same.
        spent += error.inflatedBytes
        // Past what the second had left, not past a frame's own allowance: the budget refused it.
        const overBudget = error.reason === 'inflated_too_large' && allowance < limits.maxInflatedBytes
        return {
          ok: false,
          reason: overBudget ? 'inflation_budget' : error.reason,
          detail: overBudget ? `danmaku frames inflated past ${perSecond} bytes this second` : error.message,
          inflatedBytes: error.inflatedBytes,
        }
      }
    },
  }
}
