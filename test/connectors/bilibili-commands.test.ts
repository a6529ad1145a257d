import { describe, expect, it } from 'vitest'
import { convertBilibiliCommand } from '../../src/connectors/bilibili/convert-bilibili-command.js'
import {
  danmakuCommand,
  giftCommand,
  guardCommand,
  interactCommand,
  interactV2Command,
  liveCommand,
  preparingCommand,
  superChatCommand,
} from './__fixtures__/bilibili-commands.js'

const withMedal = (medal: unknown[]): unknown[] => {
  const info: unknown[] = [...danmakuCommand({ uid: 9 }).info]
  info[3] = medal
  return info
}

const convert = (command: unknown, botUid = 0) =>
  convertBilibiliCommand({ command, roomId: 21452505, ownerUid: 1000, botUid, characterName: '小雪' })

describe('Bilibili commands to audience messages', () => {
  it('reads a danmaku with the role Bilibili gives its sender', () => {
    expect(convert(danmakuCommand({ uid: 1000, name: '主播本人', text: '大家好', idStr: 'a' }))).toEqual({
      kind: 'message',
      from: 'danmaku',
      message: { id: 'dm:a', speaker: { id: '1000', name: '主播本人', role: 'owner' }, text: '大家好' },
      fan: { medalLevel: 0, userLevel: 12 },
    })
    const admin = convert(danmakuCommand({ uid: 7, name: '房管', admin: 1, idStr: 'b' }))
    expect(admin).toMatchObject({ message: { speaker: { role: 'moderator' } } })
    const guard = convert(
      danmakuCommand({ uid: 8, name: '舰长', guardLevel: 3, medal: [21, '雪糕', '小雪', 21452505] }),
    )
    expect(guard).toMatchObject({ message: { speaker: { role: 'member' } } })
    const viewer = convert(danmakuCommand({ uid: 9, name: '路人', medal: [3, '别家', '别人', 1] }))
    expect(viewer).toMatchObject({ message: { speaker: { id: '9', name: '路人', role: 'viewer' } } })
  })

  it('keeps a masked name as shown and tells anonymous viewers apart by their uid hash', () => {
    const anonymous = convert(danmakuCommand({ uid: 0, name: '张***', uidHash: '5f3e2a1b', idStr: '' }))
    expect(anonymous).toEqual({
      kind: 'message',
      from: 'danmaku',
      message: {
        id: 'dm:hash:5f3e2a1b:1764200000000:1764199000',
        speaker: { id: 'hash:5f3e2a1b', name: '张***', role: 'viewer' },
        text: '主播晚上好',
      },
      // Read anonymously, the sender's level is not known.
      fan: { medalLevel: 0 },
    })
  })

  it('keeps the level of this room’s fan medal and the user level, for the weights', () => {
    const ours = convert(danmakuCommand({ uid: 8, medal: [21, '雪糕', '小雪', 21452505], userLevel: 3 }))
    expect(ours).toMatchObject({ fan: { medalLevel: 21, userLevel: 3 } })
    // Another streamer's medal is no fan of this room.
    expect(convert(danmakuCommand({ uid: 9, medal: [25, '别家', '别人', 1] }))).toMatchObject({
      fan: { medalLevel: 0, userLevel: 12 },
    })
    // A medal that names the streamer's uid (its 13th place) counts even with another room id.
    const byOwner = [7, '雪糕', '小雪', 0, 0, 0, 0, 0, 0, 0, 0, 1, 1000]
    expect(convert({ ...danmakuCommand({ uid: 9 }), info: withMedal(byOwner) })).toMatchObject({
      fan: { medalLevel: 7 },
    })
    const gift = giftCommand({})
    gift.data.medal_info = { ...gift.data.medal_info, anchor_roomid: 21452505, medal_level: 9 }
    expect(convert(gift)).toMatchObject({ fan: { medalLevel: 9 } })
    const superChat = superChatCommand({})
    superChat.data.medal_info = { ...superChat.data.medal_info, target_id: 1000, medal_level: 4 }
    expect(convert(superChat)).toMatchObject({ fan: { medalLevel: 4, userLevel: 20 } })
  })

  it('writes stickers and inline emoticons as words', () => {
    const sticker = convert(
      danmakuCommand({
        text: '赞',
        danmakuType: 1,
        sticker: {
          emoticon_unique: 'official_13',
          url: 'https://i0.hdslb.com/x.png',
          width: 183,
          height: 60,
        },
      }),
    )
    expect(sticker).toMatchObject({ message: { text: '（表情：赞）' } })
    const inline = convert(
      danmakuCommand({
        text: '笑死[dog][热词系列_知识增加]',
        emots: {
          '[dog]': { emoticon_id: 208, emoji: '[dog]', descript: '[dog]', url: 'https://i0.hdslb.com/d.png' },
          '[热词系列_知识增加]': {
            emoticon_id: 1,
            emoji: '[热词系列_知识增加]',
            descript: '[热词系列_知识增加]',
          },
        },
      }),
    )
    expect(inline).toMatchObject({ message: { text: '笑死（表情：dog）（表情：知识增加）' } })
  })

  it('skips the logged-in account’s own danmaku and reads a reply to it as a mention', () => {
    expect(convert(danmakuCommand({ uid: 555, text: '我自己' }), 555)).toBeUndefined()
    expect(convert(danmakuCommand({ uid: 9, text: '真的吗', replyMid: 555 }), 555)).toMatchObject({
      message: { text: '@小雪 真的吗' },
    })
  })

  it('gives gold gifts, guards and super chats their price in CNY; silver gifts are only counted', () => {
    expect(
      convert(giftCommand({ uid: 2001, name: '小鱼干', giftName: '小花花', num: 5, price: 100, tid: 't1' })),
    ).toEqual({
      kind: 'message',
      from: 'gift',
      count: 5,
      message: {
        id: 'gift:t1',
        speaker: { id: '2001', name: '小鱼干', role: 'viewer' },
        text: '投喂 小花花 ×5',
        gift: { name: '小花花', value: 0.5 },
      },
      fan: { medalLevel: 0 },
    })
    expect(convert(giftCommand({ coinType: 'silver', price: 100 }))).toEqual({
      kind: 'counted',
      what: 'silver_gift',
    })
    expect(convert(giftCommand({ price: 0 }))).toEqual({ kind: 'counted', what: 'silver_gift' })
    expect(convert(guardCommand({ uid: 3001, name: '舰长大人', level: 3 }))).toMatchObject({
      message: {
        speaker: { id: '3001', name: '舰长大人', role: 'member' },
        text: '开通了舰长',
        gift: { name: '舰长', value: 198 },
      },
    })
    expect(
      convert(superChatCommand({ id: 77, uid: 4001, name: '富婆', text: ' 唱首歌吧 ', price: 50 })),
    ).toEqual({
      kind: 'message',
      from: 'super_chat',
      message: {
        id: 'sc:77',
        speaker: { id: '4001', name: '富婆', role: 'viewer' },
        text: '唱首歌吧',
        gift: { name: '醒目留言', value: 50 },
      },
      fan: { medalLevel: 0, userLevel: 20 },
    })
  })

  it('counts entries and follows, and follows the room going live and offline', () => {
    expect(convert(interactCommand(1))).toEqual({
      kind: 'counted',
      what: 'entered',
      viewer: { uid: 5001, name: '路人甲' },
    })
    expect(convert(interactCommand(2))).toMatchObject({ kind: 'counted', what: 'followed' })
    expect(convert(interactCommand(3))).toBeUndefined()
    // The newer command carries the same in a protobuf, and is counted the same.
    expect(convert(interactV2Command(1, 6001, '新人'))).toEqual({
      kind: 'counted',
      what: 'entered',
      viewer: { uid: 6001, name: '新人' },
    })
    expect(convert(interactV2Command(2, 6002, '粉丝'))).toEqual({
      kind: 'counted',
      what: 'followed',
      viewer: { uid: 6002, name: '粉丝' },
    })
    expect(convert(interactV2Command(3))).toBeUndefined()
    expect(convert({ cmd: 'INTERACT_WORD_V2', data: {} })).toBeUndefined()
    expect(convert(preparingCommand)).toMatchObject({
      kind: 'room',
      live: false,
      notice: expect.stringMatching(/offline/),
    })
    expect(convert(liveCommand)).toEqual({ kind: 'room', live: true })
    expect(
      convert({ cmd: 'DANMU_MSG:4:0:2:2:2:0', info: danmakuCommand({ idStr: 'z' }).info }),
    ).toMatchObject({
      message: { id: 'dm:z' },
    })
  })

  it('ignores what it does not know or cannot read', () => {
    for (const command of [
      null,
      'text',
      [],
      { cmd: 'ONLINE_RANK_COUNT', data: {} },
      { cmd: 'DANMU_MSG', info: 'x' },
    ])
      expect(convert(command)).toBeUndefined()
  })
})
