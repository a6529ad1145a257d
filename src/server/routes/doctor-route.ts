/**
 * `POST /api/doctor`: the web page's "test connection". The body may carry unsaved `llm` settings
 * (a `***` key means the stored one); the answer lists each check as `{name, ok, code, message}`: the
 * config, the provider's address, and the model answering a tiny prompt.
 */
import type { Hono } from 'hono'
import { parseConfig } from '../../characters/load-config.js'
import { checkConfigChange } from '../../config/gate/index.js'
import { restoreMaskedSecrets } from '../../config/mask-secrets.js'
import { CharpipeError, InvalidConfigError } from '../../shared/errors.js'
import { describeForbiddenKey, findForbiddenKey } from '../../shared/find-forbidden-key.js'
import { isJsonNestedTooDeep } from '../../shared/is-json-nested-too-deep.js'
import { checkModelAnswers } from '../check-model-answers.js'
import { checkProviderConnection, type DoctorCheck } from '../check-provider-connection.js'
import { isPlainObject } from '../collect-config-changes.js'
import { respondBadRequest } from '../error-response.js'
import type { ServerDependencies } from '../server-dependencies.js'

export function registerDoctorRoute(app: Hono, dependencies: ServerDependencies): void {
  app.post('/api/doctor', dependencies.admit('admin'), async (context) => {
    const text = await context.req.text()
    let body: unknown = {}
    if (isJsonNestedTooDeep(text)) return respondBadRequest(context, 'the body nests too deep')
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text)
      } catch (error) {
        return respondBadRequest(context, `the body is not valid JSON: ${(error as Error).message}`)
      }
    }
    if (!isPlainObject(body))
      return respondBadRequest(context, 'the body must be a JSON object such as {"llm": {…}}')
    const forbidden = findForbiddenKey(body)
    if (forbidden !== undefined) return respondBadRequest(context, describeForbiddenKey(forbidden))
    const running = dependencies.configManager.current()
    const overrides = restoreMaskedSecrets(body, running)
    const checks: DoctorCheck[] = []
    let candidate = running
    try {
      const merged = { ...structuredClone(running), ...mergeSection(running, overrides) }
      // The running config is already expanded and the body is API input: no `${VAR}` is read here.
      candidate = parseConfig(merged, { source: 'POST /api/doctor', logger: dependencies.logger }).config
      const refused = await checkConfigChange({
        source: 'admin',
        candidate,
        running,
        // Only the connection settings are tried: nothing is written, so no file-only field moves.
        file: { candidate: running, running },
        secrets: { incoming: body, stored: running },
        lookup: dependencies.lookup,
      })
      if (refused.length > 0) throw new InvalidConfigError(refused, { source: 'POST /api/doctor' })
      checks.push({ name: 'config', ok: true, code: 'ok', message: 'the config is valid' })
    } catch (error) {
      const message = CharpipeError.isInstance(error) ? error.message : 'the config could not be read'
      checks.push({ name: 'config', ok: false, code: 'invalid_config', message })
      return context.json({ ok: false, checks })
    }
    const reachable = await checkProviderConnection({ llm: candidate.llm, openclaw: candidate.openclaw })
    checks.push(reachable)
    checks.push(
      reachable.ok
        ? await checkModelAnswers({ config: candidate })
        : { name: 'model', ok: false, code: 'skipped', message: `skipped: ${describeSkipReason(reachable)}` },
    )
    return context.json({ ok: checks.every((check) => check.ok), checks })
  })
}

function mergeSection(running: Record<string, unknown> | object, overrides: Record<string, unknown>) {
  const result: Record<string, unknown> = {}
  for (const [section, value] of Object.entries(overrides)) {
    const base = (running as Record<string, unknown>)[section]
    result[section] = isPlainObject(base) && isPlainObject(value) ? { ...base, ...value } : value
  }
  return result
}

/** Why the model was not asked, in the provider check's own terms (a refused key is not "unreachable"). */
function describeSkipReason(provider: DoctorCheck): string {
  if (provider.code === 'key_refused') return 'the provider refused the key'
  if (provider.code === 'timeout') return 'the provider gave no answer in time'
  return 'the provider cannot be reached'
}
