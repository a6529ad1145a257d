/**
 * One check of "test connection" (`POST /api/doctor`) in the page's language. The check's `code`
 * tells a provider that refused the key from one that cannot be reached; a server that sends no code
 * is shown by its own message, as it words it.
 */
import { translate } from './i18n.js'

export interface DoctorCheck {
  name: string
  ok: boolean
  message?: string
  /** `ok | unreachable | key_refused | not_found | timeout | http_error`; absent on older servers. */
  code?: string
}

export interface DoctorCheckDescription {
  name: string
  outcome: string
  /** The server's message when the outcome already comes from the code. */
  detail?: string
}

const doctorCodes = ['ok', 'unreachable', 'key_refused', 'not_found', 'timeout', 'http_error'] as const
const checkNames = ['config', 'provider', 'model'] as const

/** What a check found, in the page's language: the code's sentence, else the server's message. */
export function describeDoctorCheck(check: DoctorCheck): DoctorCheckDescription {
  const name = (checkNames as readonly string[]).includes(check.name)
    ? translate(`doctor.check.${check.name as (typeof checkNames)[number]}`)
    : check.name
  // The codes describe reaching the provider; the config check keeps its own words.
  const code = check.name === 'config' ? undefined : doctorCodes.find((candidate) => candidate === check.code)
  if (!code) return { name, outcome: check.message ?? '' }
  return { name, outcome: translate(`doctor.code.${code}`), detail: check.message }
}
