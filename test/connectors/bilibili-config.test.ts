import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { findFieldTrust } from '../../src/config/gate/config-field-trust.js'
import { collectSecrets, maskSecrets } from '../../src/config/mask-secrets.js'

const cookie = 'SESSDATA=sess-config-secret; bili_jct=csrf-config-secret; DedeUserID=555'

describe('connectors.bilibili in the config', () => {
  it('fills the defaults the protocol names and takes a room id as a number or digits', () => {
    const { config } = parseConfig({ connectors: { bilibili: [{ name: 'room', room_id: '21452505' }] } })
    expect(config.connectors.bilibili[0]).toEqual({
      name: 'room',
      room_id: 21452505,
      url: '',
      api_url: '',
      cookie: '',
      post_replies: false,
      max_message_chars: 20,
      medal_weight: 5,
      medal_level_weight: 1,
      min_user_level: 0,
      thank_you: {
        every_s: 0,
        for: ['follow', 'gift', 'guard'],
        template: '请用一两句话感谢：{thanks}',
      },
      character: '',
      turns_per_minute: 20,
    })
  })

  it('names what is wrong: a room id, an address, replies without bili_jct, a name used twice', () => {
    const problems = (bilibili: unknown[], twitch: unknown[] = []) => {
      try {
        parseConfig({ connectors: { bilibili, twitch } })
        return ''
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(problems([{ name: 'room', room_id: 'live/123' }])).toMatch(/room_id/)
    expect(problems([{ name: 'room', room_id: 1, url: 'http://x' }])).toMatch(
      /url must be a ws:\/\/ or wss:\/\//,
    )
    expect(problems([{ name: 'room', room_id: 1, api_url: 'ftp://x' }])).toMatch(/api_url must be an http/)
    expect(problems([{ name: 'room', room_id: 1, post_replies: true, cookie: 'SESSDATA=x' }])).toMatch(
      /post_replies needs a cookie that holds bili_jct/,
    )
    expect(problems([{ name: 'room', room_id: 1, thank_you: { template: '谢谢大家' } }])).toMatch(
      /the template must hold \{thanks\}/,
    )
    expect(problems([{ name: 'room', room_id: 1, thank_you: { for: ['share'] } }])).toMatch(/thank_you/)
    expect(problems([{ name: 'room', room_id: 1, min_user_level: -1 }])).toMatch(/min_user_level/)
    expect(problems([{ name: 'room', room_id: 1 }], [{ name: 'room', channel: 'x' }])).toMatch(
      /connector names must be unique across onebot, twitch and bilibili/,
    )
  })

  it('keeps the cookie file-only and masks it wherever the config is shown', () => {
    const { config } = parseConfig({
      connectors: { bilibili: [{ name: 'room', room_id: 1, cookie, post_replies: true }] },
    })
    expect(findFieldTrust('connectors.bilibili.0.cookie')).toMatchObject({
      kind: 'secret',
      rules: expect.arrayContaining(['file-only', 'masked']),
    })
    expect(findFieldTrust('connectors.bilibili.0.api_url')?.rules).toContain('file-only')
    expect(collectSecrets(config)).toContain(cookie)
    const shown = JSON.stringify(maskSecrets(config))
    expect(shown).not.toContain('sess-config-secret')
    expect(shown).not.toContain('csrf-config-secret')
  })
})
