import { describe, expect, it } from 'vitest'
import { listAudienceTargets } from './audience-session-picker.js'

describe('the Audience tab session picker', () => {
  it("offers this page's session, then every connector session with its connector's character", () => {
    const targets = listAudienceTargets('default', [
      { name: 'qq', character: '', state: 'failed', sessions: ['onebot:qq:group:1', 'onebot:qq:group:2'] },
      { name: 'stream', character: 'nova', state: 'ready', sessions: ['twitch:stream:chan'] },
    ])
    expect(targets).toEqual([
      { session: 'default' },
      { session: 'onebot:qq:group:1', character: '', connector: 'qq' },
      { session: 'onebot:qq:group:2', character: '', connector: 'qq' },
      { session: 'twitch:stream:chan', character: 'nova', connector: 'stream' },
    ])
  })
})
