/**
 * The `connectors` section: where the character meets its audience outside charpipe's own
 * endpoints (QQ groups through a OneBot v11 implementation, Twitch chat, Bilibili live danmaku).
 * Every field here decides
 * what the server connects to or listens on, so the whole section is file-only.
 */
import * as z from 'zod'
import { characterAudienceSchema } from './audience.js'

// The same fields as a character's `audience`, over them for this connector's sessions only.
const connectorAudienceSchema = characterAudienceSchema.describe(
  "Audience settings for this connector's sessions only, each over the character's (and the top-level) field of the same name: e.g. `idle: { after_ms: 0 }` keeps a group quiet while the same character speaks first on a stream.",
)

const connectorNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _ (at most 64)')
  .describe("The connector's name: part of its session ids and shown in GET /api/connectors.")

const characterRefSchema = z
  .string()
  .max(200)
  .default('')
  .describe('The id of the character that speaks here (a key of `characters`); empty: the default character.')

const turnsPerMinuteSchema = z
  .int()
  .min(1)
  .max(10_000)
  .default(20)
  .describe(
    "Most turns this connector may cause per minute: each reply to its chat messages (however many lines it answers) and each 1:1 turn. Its messages always reach the selector; past the budget the next reply waits until a turn frees, and lines that cannot wait are dropped with a reason (queue_full, too_old). The connector's own budget, apart from any client's.",
  )

export const onebotConnectorSchema = z
  .strictObject({
    name: connectorNameSchema,
    url: z
      .string()
      .max(2048)
      .default('')
      .describe(
        "Forward WebSocket: the OneBot implementation's WebSocket address (NapCat, Lagrange, LLOneBot), e.g. ws://127.0.0.1:3001; charpipe connects to it.",
      ),
    listen: z
      .string()
      .max(200)
      .default('')
      .describe(
        'Reverse WebSocket: a path on this server (e.g. /onebot/qq) the OneBot implementation connects to, as a Universal client.',
      ),
    access_token: z
      .string()
      .max(1000)
      .default('')
      .describe(
        'The OneBot access token: sent as a Bearer token (forward), required from the implementation (reverse).',
      ),
    groups: z
      .array(z.union([z.int().positive(), z.string().regex(/^\d{1,20}$/)]).transform(String))
      .max(1000)
      .default([])
      .describe('The group ids the character lives in; messages of other groups are ignored.'),
    private: z
      .boolean()
      .default(false)
      .describe('Answer private (friend) messages, each sender a 1:1 session.'),
    character: characterRefSchema,
    audience: connectorAudienceSchema,
    max_message_chars: z
      .int()
      .min(20)
      .max(4000)
      .default(300)
      .describe('A reply longer than this is sent as several messages, cut at sentence ends.'),
    turns_per_minute: turnsPerMinuteSchema,
  })
  .refine((connector) => (connector.url === '') !== (connector.listen === ''), {
    message: 'set exactly one of url (forward WebSocket) and listen (reverse WebSocket)',
    path: ['url'],
  })
  .refine((connector) => connector.listen === '' || /^\/[A-Za-z0-9/_-]{1,199}$/.test(connector.listen), {
    message: 'listen must be a path such as /onebot/qq (letters, digits, /, - and _)',
    path: ['listen'],
  })
  .refine((connector) => connector.url === '' || /^wss?:\/\//.test(connector.url), {
    message: 'url must be a ws:// or wss:// address',
    path: ['url'],
  })

export const twitchConnectorSchema = z
  .strictObject({
    name: connectorNameSchema,
    channel: z
      .string()
      .regex(/^#?[A-Za-z0-9_]{1,25}$/, 'a Twitch channel name (letters, digits and _)')
      .transform((channel) => channel.replace(/^#/, '').toLowerCase())
      .describe('The channel whose chat the character reads.'),
    username: z
      .string()
      .max(25)
      .default('')
      .describe("The bot account's login; empty: read anonymously (read-only)."),
    oauth_token: z
      .string()
      .max(1000)
      .default('')
      .describe("The bot account's chat token (with or without the oauth: prefix); empty: read-only."),
    post_replies: z
      .boolean()
      .default(false)
      .describe(
        "Write the character's replies into the chat (needs username and oauth_token); off: replies go only to the session's WebSocket clients (a voice character speaks them).",
      ),
    character: characterRefSchema,
    audience: connectorAudienceSchema,
    turns_per_minute: turnsPerMinuteSchema,
    url: z
      .string()
      .max(2048)
      .default('')
      .describe(
        "The chat server's WebSocket address; empty: Twitch's own (wss://irc-ws.chat.twitch.tv:443).",
      ),
  })
  .refine((connector) => connector.url === '' || /^wss?:\/\//.test(connector.url), {
    message: 'url must be a ws:// or wss:// address',
    path: ['url'],
  })
  .refine(
    (connector) => !connector.post_replies || (connector.username !== '' && connector.oauth_token !== ''),
    {
      message: 'post_replies needs username and oauth_token',
      path: ['post_replies'],
    },
  )

const bilibiliThankYouSchema = z
  .strictObject({
    every_s: z
      .int()
      .min(0)
      .max(86_400)
      .default(0)
      .describe(
        'At most one thank-you per this many seconds, for everything of `for` that came since the window opened (its first event); 0: off.',
      ),
    for: z
      .array(z.enum(['follow', 'gift', 'guard']))
      .max(3)
      .default(['follow', 'gift', 'guard'])
      .describe(
        'What is thanked: follow (a new follower), gift (gold-coin gifts), guard (舰长, 提督, 总督). Gifts and guards thanked this way are not answered one by one; super chats always are.',
      ),
    template: z
      .string()
      .min(1)
      .max(1000)
      .default('请用一两句话感谢：{thanks}')
      .describe(
        "What the character is asked, as a message of the room's owner: {thanks} becomes who gave what (张三 关注了直播间；李四 投喂 小花花 ×3). The character says its thanks in its own words; with post_replies they are also posted.",
      ),
  })
  .refine((thankYou) => thankYou.template.includes('{thanks}'), {
    message: 'the template must hold {thanks} (who gave what)',
    path: ['template'],
  })
  .describe('A thank-you for follows, gifts and guards, at most every `every_s` seconds.')

export const bilibiliConnectorSchema = z
  .strictObject({
    name: connectorNameSchema,
    room_id: z
      .union([z.int().positive(), z.string().regex(/^\d{1,15}$/, 'a room id is digits only')])
      .transform(Number)
      .describe(
        'The live room: the number in its address, live.bilibili.com/<room_id> (a short id works too).',
      ),
    url: z
      .string()
      .max(2048)
      .default('')
      .describe("The danmaku server's WebSocket address; empty: the one Bilibili's API names for the room."),
    api_url: z
      .string()
      .max(2048)
      .default('')
      .describe(
        "Base of Bilibili's live HTTP API, where `nav` (the keys that sign getDanmuInfo) is asked too; empty: Bilibili's own (https://api.live.bilibili.com, and https://api.bilibili.com for nav).",
      ),
    cookie: z
      .string()
      .max(8000)
      .default('')
      .describe(
        "A logged-in account's cookie (SESSDATA, bili_jct, DedeUserID, buvid3): viewers' names unmasked and, with post_replies, replies as danmaku; empty: read anonymously (names masked).",
      ),
    post_replies: z
      .boolean()
      .default(false)
      .describe(
        "Send the character's replies into the room as danmaku (needs a cookie with bili_jct); off: replies go only to the session's WebSocket clients (a voice character speaks them).",
      ),
    max_message_chars: z
      .int()
      .min(1)
      .max(100)
      .default(20)
      .describe(
        'A danmaku holds at most this many characters (20 for most accounts); a longer reply is sent as several, cut at sentence ends.',
      ),
    medal_weight: z
      .number()
      .min(0)
      .max(1_000_000)
      .default(5)
      .describe(
        "Added to the priority of a danmaku, gift or super chat whose sender wears this room's fan medal (粉丝牌), over the audience weights.",
      ),
    medal_level_weight: z
      .number()
      .min(0)
      .max(1_000_000)
      .default(1)
      .describe(
        "Added once more per level of that medal: a level-21 fan's message gets medal_weight + 21 × this.",
      ),
    min_user_level: z
      .int()
      .min(0)
      .max(100)
      .default(0)
      .describe(
        'Danmaku of viewers below this user level (UL) are observed (the model reads them with the next reply) but never answered, and counted as below_user_level; gifts, super chats, the streamer, room admins and guards are answered whatever the level. Read without a cookie the senders are unknown and none is held back. 0: every level.',
      ),
    thank_you: bilibiliThankYouSchema.prefault({}),
    character: characterRefSchema,
    audience: connectorAudienceSchema,
    turns_per_minute: turnsPerMinuteSchema,
  })
  .refine((connector) => connector.url === '' || /^wss?:\/\//.test(connector.url), {
    message: 'url must be a ws:// or wss:// address',
    path: ['url'],
  })
  .refine((connector) => connector.api_url === '' || /^https?:\/\/[^\s]+$/.test(connector.api_url), {
    message: 'api_url must be an http:// or https:// address',
    path: ['api_url'],
  })
  .refine((connector) => !connector.post_replies || /(?:^|;)\s*bili_jct=[^;\s]+/.test(connector.cookie), {
    message:
      'post_replies needs a cookie that holds bili_jct (the CSRF value Bilibili checks on each danmaku)',
    path: ['post_replies'],
  })

export const connectorsSchema = z
  .strictObject({
    onebot: z
      .array(onebotConnectorSchema)
      .max(50)
      .default([])
      .describe('QQ groups and chats through OneBot v11.'),
    twitch: z.array(twitchConnectorSchema).max(50).default([]).describe("Twitch channels' chat."),
    bilibili: z.array(bilibiliConnectorSchema).max(50).default([]).describe("Bilibili live rooms' danmaku."),
  })
  .refine(
    (connectors) => {
      const names = [...connectors.onebot, ...connectors.twitch, ...connectors.bilibili].map(
        (connector) => connector.name,
      )
      return new Set(names).size === names.length
    },
    { message: 'connector names must be unique across onebot, twitch and bilibili' },
  )
  .describe('Group chats and live-stream chats the character takes part in (docs/connectors.md).')
