/**
 * Bilibili danmaku server commands as the web client receives them, as factories with overrides.
 *
 * Provenance: the field layouts (the `info` array of DANMU_MSG with its `extra` JSON string, the
 * `data` objects of SEND_GIFT, GUARD_BUY, SUPER_CHAT_MESSAGE and INTERACT_WORD) follow the commands
 * as documented and parsed by the public danmaku clients blivedm (xfgryujk/blivedm,
 * `blivedm/models/web.py`, whose docstrings quote recorded `extra` and emoticon values) and the
 * community API notes bilibili-API-collect. Field values (uids, names, ids, prices) are made up;
 * field order, types and the places of the values the connector reads are the recorded ones.
 */

export interface DanmakuOverrides {
  uid?: number
  name?: string
  text?: string
  admin?: 0 | 1
  /** 0 none, 1 总督, 2 提督, 3 舰长. */
  guardLevel?: number
  medal?: [level: number, name: string, anchorName: string, roomId: number]
  userLevel?: number
  idStr?: string
  /** 0 text, 1 sticker. */
  danmakuType?: 0 | 1
  sticker?: Record<string, unknown>
  emots?: Record<string, Record<string, unknown>>
  replyMid?: number
  timestamp?: number
  /** The uid's CRC32 as Bilibili sends it (the only stable id of a viewer read anonymously). */
  uidHash?: string
}

export function danmakuCommand(overrides: DanmakuOverrides = {}) {
  const timestamp = overrides.timestamp ?? 1_764_200_000_000
  const extra = {
    send_from_me: false,
    mode: 0,
    color: 16777215,
    dm_type: overrides.danmakuType ?? 0,
    font_size: 25,
    player_mode: 1,
    show_player_type: 0,
    content: overrides.text ?? '主播晚上好',
    user_hash: '2904574201',
    emoticon_unique: overrides.danmakuType === 1 ? 'official_13' : '',
    bulge_display: 0,
    recommend_score: 5,
    direction: 0,
    animation: {},
    emots: overrides.emots ?? null,
    is_audited: false,
    id_str: overrides.idStr ?? '6fa9959ab8feabcd1b337aa5066768334027',
    icon: null,
    show_reply: true,
    reply_mid: overrides.replyMid ?? 0,
    reply_uname: '',
    reply_uname_color: '',
    reply_is_mystery: false,
    hit_combo: 0,
  }
  return {
    cmd: 'DANMU_MSG',
    dm_v2: '',
    info: [
      [
        0,
        1,
        25,
        16777215,
        timestamp,
        1_764_199_000,
        0,
        overrides.uidHash ?? 'ad1a6f5c',
        0,
        0,
        0,
        '',
        overrides.danmakuType ?? 0,
        overrides.sticker ?? '{}',
        '{}',
        {
          mode: 0,
          show_player_type: 0,
          extra: JSON.stringify(extra),
          user: { uid: overrides.uid ?? 0, base: { name: overrides.name ?? '张***', face: '' } },
        },
        { activity_identity: '', activity_source: 0, not_show: 0 },
        0,
      ],
      overrides.text ?? '主播晚上好',
      [overrides.uid ?? 0, overrides.name ?? '张***', overrides.admin ?? 0, 0, 0, 10000, 1, ''],
      overrides.medal ?? [],
      [overrides.userLevel ?? 12, 0, 9868950, '>50000', 0],
      ['', ''],
      0,
      overrides.guardLevel ?? 0,
      null,
      { ts: Math.floor(timestamp / 1000), ct: 'A1B2C3D4' },
      0,
      0,
      null,
      null,
      0,
      105,
      [3],
      null,
    ],
  }
}

export function giftCommand(overrides: {
  uid?: number
  name?: string
  giftName?: string
  num?: number
  /** Unit price in gold (or silver) coins. */
  price?: number
  coinType?: 'gold' | 'silver'
  tid?: string
  guardLevel?: number
}) {
  const num = overrides.num ?? 1
  const price = overrides.price ?? 1000
  return {
    cmd: 'SEND_GIFT',
    data: {
      action: '投喂',
      batch_combo_id: '',
      blind_gift: null,
      coin_type: overrides.coinType ?? 'gold',
      discount_price: price,
      face: '',
      giftId: 31036,
      giftName: overrides.giftName ?? '小花花',
      giftType: 0,
      gift_info: { img_basic: '' },
      guard_level: overrides.guardLevel ?? 0,
      medal_info: { anchor_roomid: 0, anchor_uname: '', medal_level: 0, medal_name: '', target_id: 0 },
      num,
      price,
      rnd: '1764200000123456',
      tid: overrides.tid ?? '1764200000123456',
      timestamp: 1_764_200_000,
      total_coin: price * num,
      uid: overrides.uid ?? 2001,
      uname: overrides.name ?? '小鱼干',
    },
  }
}

export function guardCommand(overrides: { uid?: number; name?: string; level?: number; startTime?: number }) {
  const level = overrides.level ?? 3
  return {
    cmd: 'GUARD_BUY',
    data: {
      uid: overrides.uid ?? 3001,
      username: overrides.name ?? '舰长大人',
      guard_level: level,
      num: 1,
      price: level === 3 ? 198_000 : level === 2 ? 1_998_000 : 19_998_000,
      gift_id: 10_000 + level,
      gift_name: level === 3 ? '舰长' : level === 2 ? '提督' : '总督',
      start_time: overrides.startTime ?? 1_764_200_100,
      end_time: overrides.startTime ?? 1_764_200_100,
    },
  }
}

export function superChatCommand(overrides: {
  id?: number
  uid?: number
  name?: string
  text?: string
  /** CNY. */
  price?: number
  guardLevel?: number
}) {
  return {
    cmd: 'SUPER_CHAT_MESSAGE',
    roomid: 0,
    data: {
      background_bottom_color: '#2A60B2',
      background_color: '#EDF5FF',
      background_icon: '',
      background_image: '',
      background_price_color: '#7497CD',
      end_time: 1_764_200_160,
      gift: { gift_id: 12000, gift_name: '醒目留言', num: 1 },
      id: overrides.id ?? 9_000_001,
      is_ranked: 0,
      medal_info: { anchor_roomid: 0, anchor_uname: '', medal_level: 0, medal_name: '', target_id: 0 },
      message: overrides.text ?? '今天唱什么歌？',
      message_trans: '',
      price: overrides.price ?? 30,
      start_time: 1_764_200_100,
      time: 60,
      token: 'A1B2C3D4',
      ts: 1_764_200_100,
      uid: overrides.uid ?? 4001,
      user_info: {
        face: '',
        guard_level: overrides.guardLevel ?? 0,
        is_main_vip: 0,
        uname: overrides.name ?? '富婆',
        user_level: 20,
      },
    },
  }
}

/** `msgType`: 1 entered, 2 followed, 3 shared. */
export function interactCommand(msgType: number, uid = 5001) {
  return {
    cmd: 'INTERACT_WORD',
    data: {
      contribution: { grade: 0 },
      dmscore: 12,
      fans_medal: { anchor_roomid: 0, guard_level: 0, medal_level: 0, medal_name: '' },
      identities: [1],
      is_spread: 0,
      msg_type: msgType,
      roomid: 0,
      score: 1_764_200_000,
      timestamp: 1_764_200_000,
      uid,
      uname: '路人甲',
    },
  }
}

export const preparingCommand = { cmd: 'PREPARING', roomid: '0' }
export const liveCommand = { cmd: 'LIVE', live_key: '0', live_platform: 'pc', roomid: 0 }

/**
 * `INTERACT_WORD_V2`: the same data as `INTERACT_WORD` as a base64 protobuf in `data.pb`. Field
 * numbers as the public clients decode it (1 uid, 2 uname, 3 uname_color, 4 identities packed,
 * 5 msg_type, 6 roomid, 7 timestamp, 8 score, 9 fans_medal); values made up.
 */
export function interactV2Command(msgType: number, uid = 5001, name = '路人乙') {
  const pb = Buffer.concat([
    protobufVarint(1, uid),
    protobufBytes(2, Buffer.from(name)),
    protobufBytes(3, Buffer.from('#00D1F1')),
    protobufBytes(4, Buffer.from([3, 1])),
    protobufVarint(5, msgType),
    protobufVarint(6, 21452505),
    protobufVarint(7, 1_764_200_000),
    protobufVarint(8, 1_764_200_000_123),
    protobufBytes(9, Buffer.concat([protobufVarint(1, 21452505), protobufVarint(2, 12)])),
  ])
  return { cmd: 'INTERACT_WORD_V2', data: { dmscore: 10, pb: pb.toString('base64') } }
}

export function protobufVarint(field: number, value: number): Buffer {
  return Buffer.concat([varint(field * 8), varint(value)])
}

export function protobufBytes(field: number, value: Buffer): Buffer {
  return Buffer.concat([varint(field * 8 + 2), varint(value.length), value])
}

function varint(value: number): Buffer {
  const bytes: number[] = []
  let rest = value
  while (rest >= 128) {
    bytes.push((rest % 128) | 0x80)
    rest = Math.floor(rest / 128)
  }
  bytes.push(rest)
  return Buffer.from(bytes)
}
