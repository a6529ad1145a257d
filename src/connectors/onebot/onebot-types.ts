/**
 * OneBot v11 as its specification writes it (github.com/botuniverse/onebot-11): the events an
 * implementation pushes, the message segments, and the API call / response frames that travel over
 * the same WebSocket with an `echo` to pair them.
 */

/** One part of a message: `text`, `at`, `reply`, `image`, `face`, … (unknown types are kept). */
export interface OnebotSegment {
  type: string
  data: Record<string, unknown>
}

export interface OnebotSender {
  user_id?: number
  nickname?: string
  /** The member's name card in this group (shown instead of the nickname when set). */
  card?: string
  role?: 'owner' | 'admin' | 'member'
}

export interface OnebotMessageEvent {
  time: number
  self_id: number
  post_type: 'message' | 'message_sent'
  message_type: 'group' | 'private'
  sub_type?: string
  message_id: number | string
  user_id: number
  group_id?: number
  /** Segments, or a string with CQ codes when the implementation reports `message_format: string`. */
  message: OnebotSegment[] | string
  raw_message?: string
  sender?: OnebotSender
}

export interface OnebotMetaEvent {
  time: number
  self_id: number
  post_type: 'meta_event'
  meta_event_type: 'lifecycle' | 'heartbeat'
  sub_type?: string
  interval?: number
  status?: unknown
}

/** An API call (`send_group_msg`, …); the response carries the same `echo`. */
export interface OnebotApiCall {
  action: string
  params: Record<string, unknown>
  echo: string
}

export interface OnebotApiResponse {
  status: 'ok' | 'async' | 'failed'
  retcode: number
  data: unknown
  message?: string
  wording?: string
  echo?: unknown
}

export function isApiResponse(frame: Record<string, unknown>): boolean {
  return 'retcode' in frame && 'status' in frame && !('post_type' in frame)
}
