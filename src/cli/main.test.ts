import { afterEach, describe, expect, it, vi } from 'vitest'
import { main } from './main.js'

afterEach(() => vi.restoreAllMocks())

describe('charpipe <command>', () => {
  it('refuses a command named after an Object.prototype member as unknown', async () => {
    // The command name is the first word of argv: `charpipe toString` names no command.
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      await expect(main([name])).resolves.toBe(2)
      expect(errors).toHaveBeenLastCalledWith(expect.stringContaining(`unknown command "${name}"`))
    }
  })
})
