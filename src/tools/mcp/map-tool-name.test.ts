import { describe, expect, it } from 'vitest'
import { mapToolName } from './map-tool-name.js'

describe('mapToolName', () => {
  it('keeps accepted names, with the prefix', () => {
    expect(mapToolName('', 'read_file')).toBe('read_file')
    expect(mapToolName('fs_', 'read-file')).toBe('fs_read-file')
  })

  it('maps refused names to accepted, distinct ones', () => {
    const dotted = mapToolName('', 'files.read')
    const slashed = mapToolName('', 'files/read')
    for (const name of [dotted, slashed]) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    expect(dotted).not.toBe(slashed)
    const long = mapToolName('server_', 'x'.repeat(80))
    expect(long).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    expect(mapToolName('', '工具')).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
  })
})
