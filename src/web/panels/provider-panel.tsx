/** Provider settings: registry picker, key, model, timeouts, fallbacks, OpenClaw, test connection. */
import { useEffect, useState } from 'preact/hooks'
import { FieldShell } from '../components/field-shell.js'
import { SaveBar } from '../components/save-bar.js'
import { SchemaField } from '../components/schema-field.js'
import { requestJson } from '../lib/api-client.js'
import { findIssuesFor } from '../lib/config-issues.js'
import { type DoctorCheck, describeDoctorCheck } from '../lib/describe-doctor-check.js'
import { findKeysToReenter } from '../lib/find-keys-to-reenter.js'
import { describeField, translate } from '../lib/i18n.js'
import { findSchemaNode } from '../lib/json-schema-node.js'
import { llmFields, openclawFields } from '../lib/panel-fields.js'
import { readResponseList } from '../lib/read-response-list.js'
import { useConfigDraft } from '../lib/use-config-draft.js'
import type { SettingsPanelProps } from './character-panel.js'

interface ProviderEntry {
  name: string
  label?: string
  apiType?: string
  defaultBaseUrl?: string
  defaultModel?: string
}

const customChoice = '__custom__'

export function ProviderPanel(props: SettingsPanelProps) {
  const draft = useConfigDraft({
    config: props.config,
    sections: ['llm', 'openclaw'],
    onSaved: props.onSaved,
  })
  const [providers, setProviders] = useState<ProviderEntry[]>([])
  const [listError, setListError] = useState('')
  const [checks, setChecks] = useState<DoctorCheck[] | undefined>()
  const [checking, setChecking] = useState(false)
  const [doctorError, setDoctorError] = useState('')
  useEffect(() => {
    requestJson<unknown>('GET', '/api/providers').then(
      (body) => setProviders(readResponseList<ProviderEntry>(body)),
      (error: Error) => setListError(error.message),
    )
  }, [])

  // The server refuses to send a stored key to a new host; say so at the key before saving.
  const issues = [
    ...draft.issues,
    ...findKeysToReenter({ saved: props.config, draft: draft.draft, providers }).filter(
      (notice) => !draft.issues.some((issue) => issue.path === notice.path),
    ),
  ]
  const providerName = String(draft.get('llm.provider') ?? '')
  const entry = providers.find((provider) => provider.name === providerName)
  const isCustom = providers.length > 0 && !entry
  const field = (key: string, placeholder?: string) => (
    <SchemaField
      path={`llm.${key}`}
      node={findSchemaNode(props.schema, `llm.${key}`)}
      value={draft.get(`llm.${key}`)}
      onChange={(value) => draft.set(`llm.${key}`, value)}
      issues={issues}
      placeholder={placeholder}
    />
  )

  const runDoctor = async () => {
    setChecking(true)
    setDoctorError('')
    setChecks(undefined)
    try {
      setChecks(readResponseList<DoctorCheck>(await requestJson<unknown>('POST', '/api/doctor', {})))
    } catch (error) {
      setDoctorError(error instanceof Error ? error.message : String(error))
    } finally {
      setChecking(false)
    }
  }

  return (
    <section class="panel" data-panel="provider">
      <h2>{translate('provider.title')}</h2>
      {listError ? (
        <div class="error-box">{translate('provider.listFailed', { message: listError })}</div>
      ) : null}
      <div class="form-grid">
        <FieldShell
          path="llm.provider"
          {...describeField({
            path: 'llm.provider',
            description: findSchemaNode(props.schema, 'llm.provider')?.description,
          })}
          errors={findIssuesFor(draft.issues, 'llm.provider')}
        >
          <select
            name="llm.provider"
            value={isCustom ? customChoice : providerName}
            onChange={(event) => {
              const value = event.currentTarget.value
              draft.set('llm.provider', value === customChoice ? '' : value)
            }}
          >
            {providers.map((provider) => (
              <option value={provider.name}>
                {provider.label ?? provider.name} ({provider.name})
              </option>
            ))}
            <option value={customChoice}>{translate('provider.custom')}</option>
          </select>
          {isCustom ? (
            <input
              type="text"
              name="llm.provider.custom"
              placeholder={translate('provider.customPlaceholder')}
              value={providerName}
              onInput={(event) => draft.set('llm.provider', event.currentTarget.value)}
            />
          ) : null}
        </FieldShell>
        {field('model', entry?.defaultModel || undefined)}
        {field('base_url', entry?.defaultBaseUrl || undefined)}
        {field('api_key')}
        {llmFields.map((key) => field(key))}
      </div>
      <h3>{translate('provider.fallbacks')}</h3>
      <SchemaField
        path="llm.fallbacks"
        node={findSchemaNode(props.schema, 'llm.fallbacks')}
        value={draft.get('llm.fallbacks')}
        onChange={(value) => draft.set('llm.fallbacks', value)}
        issues={issues}
      />
      <details open={providerName === 'openclaw'}>
        <summary>{translate('provider.openclaw')}</summary>
        <div class="form-grid">
          {openclawFields.map((key) => (
            <SchemaField
              path={`openclaw.${key}`}
              node={findSchemaNode(props.schema, `openclaw.${key}`)}
              value={draft.get(`openclaw.${key}`)}
              onChange={(value) => draft.set(`openclaw.${key}`, value)}
              issues={issues}
            />
          ))}
        </div>
      </details>
      <SaveBar draft={draft} />
      <div class="doctor">
        <button type="button" data-action="doctor" disabled={checking} onClick={() => void runDoctor()}>
          {translate(checking ? 'doctor.running' : 'doctor.run')}
        </button>
        {doctorError ? <div class="error-box">{doctorError}</div> : null}
        {checks ? (
          <ul class="checks" data-checks>
            {checks.map((check) => {
              const described = describeDoctorCheck(check)
              return (
                <li class={check.ok ? 'ok' : 'fail'} data-check={check.name} data-code={check.code ?? ''}>
                  {check.ok ? '✅' : '❌'} <strong>{described.name}</strong>{' '}
                  <span class="check-outcome">{described.outcome}</span>
                  {described.detail ? <small class="check-detail">{described.detail}</small> : null}
                </li>
              )
            })}
          </ul>
        ) : null}
      </div>
    </section>
  )
}
