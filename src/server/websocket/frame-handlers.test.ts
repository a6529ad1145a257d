import { describe, expect, it } from 'vitest'
import { doors } from '../../admission/index.js'
import { clientFrameTypes } from '../request-schemas.js'
import { followDoor } from '../websocket-audience.js'
import { frameHandlers } from './frame-handlers.js'

const webSocketDoors = doors.filter((door) => door.startsWith('ws_'))
const registered = Object.entries(frameHandlers)

describe('the WebSocket frame table', () => {
  it('every ws_* door of the admission is a registered kind’s door or the follow’s', () => {
    const declared = new Set([followDoor, ...registered.flatMap(([, handler]) => handler.doors)])
    expect(webSocketDoors.filter((door) => !declared.has(door))).toEqual([])
  })

  it('every registered kind enters by WebSocket doors only, none of them the follow’s', () => {
    for (const [type, handler] of registered) {
      expect(handler.doors.length, type).toBeGreaterThan(0)
      for (const door of handler.doors) {
        expect(webSocketDoors, `${type}: ${door}`).toContain(door)
        expect(door, type).not.toBe(followDoor)
      }
    }
  })

  it('every frame type a client may send has a handler, and every handler a frame type', () => {
    expect(Object.keys(frameHandlers).sort()).toEqual([...clientFrameTypes].sort())
  })

  it.each([
    [{ type: 'user_input', text: 'hi' }, 'ws_user_input'],
    [{ type: 'user_input', text: 'hi', preflight: true }, 'ws_preflight'],
    [{ type: 'user_input', text: 'hi', preflight: false }, 'ws_user_input'],
  ] as const)('user_input picks its door by preflight: %j → %s', (frame, door) => {
    expect(frameHandlers.user_input.selectDoor?.(frame)).toBe(door)
    expect(frameHandlers.user_input.doors).toContain(door)
  })
})
