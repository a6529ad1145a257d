/**
 * The door battery's WebSocket doors (battery.ts): every frame door of the admission × every
 * hostile input, on a server of this file's own (the HTTP and connector doors run beside it, in
 * door-battery-http.test.ts).
 */
import { describe } from 'vitest'
import { doors } from '../../src/admission/index.js'
import { testDoors, useBattery } from './battery.js'

useBattery()

// Generous: a guard against a hang, not a measure (each door's cells take about a second).
describe('door battery: WebSocket doors', { timeout: 120_000 }, () => {
  testDoors(doors.filter((door) => door.startsWith('ws_')))
})
