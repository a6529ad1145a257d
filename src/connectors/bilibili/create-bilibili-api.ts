/**
 * The calls of Bilibili's HTTP API a danmaku connector makes: `room_init` (a short room id to the
 * real one, the streamer's uid, whether the room is live), `getDanmuInfo` (a fresh token and the
 * danmaku server for each connection, WBI-signed with the keys `nav` names, kept for hours and asked
 * again when a signature is refused) and `msg/send` (a danmaku, with the cookie's `bili_jct` as CSRF
 * value). The cookie goes only into the `Cookie` header; no error or result carries it.
 */
import { readBoundedText } from '../../shared/read-bounded-text.js'
import { redactText } from '../../shared/redact.js'
import { signWbiQuery, wbiKeyOfUrl, wbiMixinKey } from './sign-wbi.js'

const bilibiliApiUrl = 'https://api.live.bilibili.com'
/** Where `nav` is when no API base is configured (with one, `nav` is asked there too). */
const bilibiliMainApiUrl = 'https://api.bilibili.com'
/** Bilibili changes the WBI keys about daily; a refused signature fetches them sooner. */
const wbiKeysMaxAgeMs = 6 * 60 * 60 * 1000
/** `getDanmuInfo`'s answer to a missing or wrong WBI signature. */
const wbiRefusedCode = -352
/** Bilibili's API answers are a few kilobytes of JSON; a longer one is not read on. */
const maxApiAnswerBytes = 1024 * 1024
export const bilibiliDanmakuUrl = 'wss://broadcastlv.chat.bilibili.com/sub'

export interface BilibiliCookie {
  /** The whole `Cookie` header value. */
  header: string
  /** The account's uid (`DedeUserID`); 0 without a cookie. */
  uid: number
  /** The CSRF value (`bili_jct`) `msg/send` needs. */
  csrf: string
  buvid: string
  /**
   * What must never be shown: the whole header and each of its values (`SESSDATA`, `bili_jct`, …)
   * but the account's uid, each also URL-decoded (an echo may decode `%2C`).
   */
  secrets: string[]
}

export function parseBilibiliCookie(cookie: string): BilibiliCookie {
  const values = new Map<string, string>()
  for (const pair of cookie.split(';')) {
    const equals = pair.indexOf('=')
    if (equals > 0) values.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim())
  }
  const uid = Number(values.get('DedeUserID') ?? 0)
  const secrets = new Set<string>()
  if (cookie.trim() !== '') secrets.add(cookie.trim())
  for (const [name, value] of values) {
    if (name === 'DedeUserID' || value === '') continue
    secrets.add(value)
    secrets.add(decodeCookieValue(value))
  }
  return {
    secrets: [...secrets],
    header: cookie.trim(),
    uid: Number.isSafeInteger(uid) && uid > 0 ? uid : 0,
    csrf: values.get('bili_jct') ?? '',
    buvid: values.get('buvid3') ?? '',
  }
}

function decodeCookieValue(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

export interface BilibiliRoom {
  roomId: number
  /** The streamer's uid: their danmaku are the owner's. */
  ownerUid: number
  live: boolean
}

export interface DanmakuServer {
  url: string
  token: string
}

export interface SendDanmakuResult {
  ok: boolean
  /** Bilibili's code: 0 sent; 10030/10031 too fast; others (a ban, a logged-out cookie) named in `message`. */
  code: number
  message: string
}

export interface BilibiliApi {
  resolveRoom(roomId: number): Promise<BilibiliRoom>
  getDanmakuServer(roomId: number): Promise<DanmakuServer>
  sendDanmaku(roomId: number, text: string): Promise<SendDanmakuResult>
}

export interface CreateBilibiliApiOptions {
  /** Base of the live HTTP API; empty: Bilibili's own. */
  apiUrl: string
  cookie: BilibiliCookie
  fetch?: typeof fetch
  timeoutMs?: number
  /** The clock the signatures' `wts` and the keys' age are read from. @default Date.now */
  now?: () => number
}

/** The answer's JSON, or undefined when it is none. */
function parseApiAnswer<T>(text: string | undefined): ApiAnswer<T> | undefined {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as ApiAnswer<T>
  } catch {
    return undefined
  }
}

interface ApiAnswer<T> {
  code: number
  message?: string
  msg?: string
  data?: T
}

export function createBilibiliApi(options: CreateBilibiliApiOptions): BilibiliApi {
  const base = (options.apiUrl || bilibiliApiUrl).replace(/\/+$/, '')
  const navBase = (options.apiUrl || bilibiliMainApiUrl).replace(/\/+$/, '')
  const fetchImpl = options.fetch ?? fetch
  const now = options.now ?? Date.now
  let wbi: { mixinKey: string; fetchedAt: number } | undefined
  const timeoutMs = options.timeoutMs ?? 10_000
  const secrets = options.cookie.secrets

  async function call<T>(
    path: string,
    roomId: number,
    init: RequestInit = {},
    origin = base,
  ): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = {
      'User-Agent': 'Mozilla/5.0 charpipe',
      Referer: `https://live.bilibili.com/${roomId}`,
      ...(options.cookie.header !== '' ? { Cookie: options.cookie.header } : {}),
      ...(init.headers as Record<string, string> | undefined),
    }
    let response: Response
    try {
      response = await fetchImpl(`${origin}${path}`, {
        ...init,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string } }).cause?.code
      throw new Error(
        redactText(
          `${origin}${path.split('?')[0]} could not be reached (${cause ?? (error as Error).message})`,
          secrets,
        ),
      )
    }
    if (!response.ok) throw new Error(`${origin}${path.split('?')[0]} answered HTTP ${response.status}`)
    const body = await readBoundedText(response, maxApiAnswerBytes).catch(() => undefined)
    if (body && !body.complete)
      throw new Error(`${origin}${path.split('?')[0]} answered more than ${maxApiAnswerBytes} bytes`)
    const answer = parseApiAnswer<T>(body?.text)
    if (!answer || typeof answer.code !== 'number')
      throw new Error(`${origin}${path.split('?')[0]} answered something that is not Bilibili's JSON`)
    return answer
  }

  const describe = (answer: ApiAnswer<unknown>) =>
    redactText(
      `code ${answer.code}${answer.message || answer.msg ? `: ${answer.message || answer.msg}` : ''}`,
      secrets,
    )

  /** The mixin key, from `nav` when none is kept or it is too old (or `fresh`: a signature was refused). */
  async function mixinKey(roomId: number, fresh: boolean): Promise<string> {
    if (wbi && !fresh && now() - wbi.fetchedAt < wbiKeysMaxAgeMs) return wbi.mixinKey
    // `nav` answers -101 to a guest, with the keys all the same.
    const answer = await call<{ wbi_img?: { img_url?: string; sub_url?: string } }>(
      '/x/web-interface/nav',
      roomId,
      {},
      navBase,
    )
    const images = answer.data?.wbi_img
    if (typeof images?.img_url !== 'string' || typeof images.sub_url !== 'string')
      throw new Error(`no WBI keys from ${navBase}/x/web-interface/nav (${describe(answer)})`)
    const key = wbiMixinKey({ imgKey: wbiKeyOfUrl(images.img_url), subKey: wbiKeyOfUrl(images.sub_url) })
    wbi = { mixinKey: key, fetchedAt: now() }
    return key
  }

  async function askDanmuInfo(roomId: number, freshKeys: boolean) {
    const query = signWbiQuery(
      { id: roomId, type: 0 },
      await mixinKey(roomId, freshKeys),
      Math.floor(now() / 1000),
    )
    return call<{ token?: string; host_list?: { host: string; wss_port: number }[] }>(
      `/xlive/web-room/v1/index/getDanmuInfo?${query}`,
      roomId,
    )
  }

  return {
    async resolveRoom(roomId) {
      const answer = await call<{ room_id?: number; uid?: number; live_status?: number }>(
        `/room/v1/Room/room_init?id=${roomId}`,
        roomId,
      )
      if (answer.code !== 0 || !answer.data?.room_id)
        throw new Error(`room ${roomId} could not be looked up (${describe(answer)})`)
      return {
        roomId: answer.data.room_id,
        ownerUid: answer.data.uid ?? 0,
        live: answer.data.live_status === 1,
      }
    },
    async getDanmakuServer(roomId) {
      let answer = await askDanmuInfo(roomId, false)
      // The keys changed since they were fetched: fetch them again, once.
      if (answer.code === wbiRefusedCode) answer = await askDanmuInfo(roomId, true)
      if (answer.code !== 0 || typeof answer.data?.token !== 'string')
        throw new Error(`no danmaku token for room ${roomId} (${describe(answer)})`)
      const host = answer.data.host_list?.[0]
      return {
        token: answer.data.token,
        url: host ? `wss://${host.host}:${host.wss_port}/sub` : bilibiliDanmakuUrl,
      }
    },
    async sendDanmaku(roomId, text) {
      const form = new URLSearchParams({
        bubble: '0',
        msg: text,
        color: '16777215',
        mode: '1',
        room_type: '0',
        jumpfrom: '0',
        fontsize: '25',
        rnd: String(Math.floor(now() / 1000)),
        roomid: String(roomId),
        csrf: options.cookie.csrf,
        csrf_token: options.cookie.csrf,
      })
      const answer = await call<unknown>('/msg/send', roomId, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      })
      return { ok: answer.code === 0, code: answer.code, message: describe(answer) }
    },
  }
}
