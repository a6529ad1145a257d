/**
 * `POST /api/doctor`: the web page's "test connection". The body may carry unsaved `llm` settings
 * (a `***` key means the stored one); the answer lists each check as `{name, ok, message}`: the
 * config, the provider's address, and the model answering a tiny prompt.
 */
import type { Hono } from 'hono'
import { parseConfig } from '../../config/load-config.js'
import { restoreMaskedSecrets } from '../../config/mask-secrets.js'
import { CharpipeError } from '../../shared/errors.js'
import { checkModelAnswers } from '../check-model-answers.js'
import { checkProviderConnection, type DoctorCheck } from '../check-provider-connection.js'
import { isPlainObject } from '../collect-config-changes.js'
import { respondBadRequest } from '../error-response.js'
import { isJsonNestedTooDeep } from '../is-json-nested-too-deep.js'
import type { ServerDependencies } from '../server-dependencies.js'

export function registerDoctorRoute(app: Hono, dependencies: ServerDependencies): void {
  app.post('/api/doctor', async (context) => {
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
    const running = dependencies.configManager.current()
    const overrides = restoreMaskedSecrets(body, running)
    const checks: DoctorCheck[] = []
    let candidate = running
    try {
      const merged = { ...structuredClone(running), ...mergeSection(running, overrides) }
      candidate = parseConfig(merged, { source: 'POST /api/doctor', logger: dependencies.logger }).config
      checks.push({ name: 'config', ok: true, message: 'the config is valid' })
    } catch (error) {
      const message = CharpipeError.isInstance(error) ? error.message : 'the config could not be read'
      checks.push({ name: 'config', ok: false, message })
      return context.json({ ok: false, checks })
    }
    const reachable = await checkProviderConnection({ llm: candidate.llm, openclaw: candidate.openclaw })
    checks.push(reachable)
    checks.push(
      reachable.ok
        ? await checkModelAnswers({ config: candidate })
        : { name: 'model', ok: false, message: 'skipped: the provider cannot be reached' },
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
