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
  /** `ok | unreachable | key_refused | not_found | timeout | http_error | invalid_config | skipped`. */
  code?: string
}

export interface DoctorCheckDescription {
  name: string
  outcome: string
  /** The server's message when the outcome already comes from the code. */
  detail?: string
}

const doctorCodes = [
  'ok',
  'unreachable',
  'key_refused',
  'not_found',
  'timeout',
  'http_error',
  'invalid_config',
  'skipped',
] as const
const checkNames = ['config', 'provider', 'model'] as const

/** What a check found, in the page's language: the code's sentence, else the server's message. */
export function describeDoctorCheck(check: DoctorCheck): DoctorCheckDescription {
  const name = (checkNames as readonly string[]).includes(check.name)
    ? translate(`doctor.check.${check.name as (typeof checkNames)[number]}`)
    : check.name
  // Most codes describe reaching the provider; the config check keeps its own words unless invalid.
  const known = doctorCodes.find((candidate) => candidate === check.code)
  const code = check.name === 'config' && known !== 'invalid_config' ? undefined : known
  if (!code) return { name, outcome: check.message ?? '' }
  return { name, outcome: translate(`doctor.code.${code}`), detail: check.message }
}
