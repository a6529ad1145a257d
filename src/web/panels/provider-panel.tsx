/** Provider settings: registry picker, key, model, timeouts, fallbacks, OpenClaw, test connection. */
import { useEffect, useState } from 'preact/hooks'
import { FieldShell } from '../components/field-shell.js'
import { SaveBar } from '../components/save-bar.js'
import { SchemaField } from '../components/schema-field.js'
import { requestJson } from '../lib/api-client.js'
import { findIssuesFor } from '../lib/config-issues.js'
import { findKeysToReenter } from '../lib/find-keys-to-reenter.js'
import { findSchemaNode } from '../lib/json-schema-node.js'
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

interface DoctorCheck {
  name: string
  ok: boolean
  message?: string
}

const llmFields = [
  'temperature',
  'max_tokens',
  'context_window',
  'timeout_ms',
  'stall_timeout_ms',
  'max_retries',
  'function_calling',
  'vision',
  'max_tool_steps',
]
const openclawFields = ['url', 'token', 'session_key', 'agent_id', 'timeout_ms']
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
      <h2>模型服务 Provider</h2>
      {listError ? <div class="error-box">服务商列表读取失败 (provider list): {listError}</div> : null}
      <div class="form-grid">
        <FieldShell
          path="llm.provider"
          label="服务商"
          hint={findSchemaNode(props.schema, 'llm.provider')?.description}
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
            <option value={customChoice}>其他 OpenAI 兼容 (custom name + base_url)</option>
          </select>
          {isCustom ? (
            <input
              type="text"
              name="llm.provider.custom"
              placeholder="服务商名称 (provider name)"
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
      <h3>备用服务商 Fallbacks</h3>
      <SchemaField
        path="llm.fallbacks"
        node={findSchemaNode(props.schema, 'llm.fallbacks')}
        value={draft.get('llm.fallbacks')}
        onChange={(value) => draft.set('llm.fallbacks', value)}
        issues={issues}
      />
      <details open={providerName === 'openclaw'}>
        <summary>OpenClaw 网关 (provider openclaw)</summary>
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
          {checking ? '检测中… (checking)' : '测试连接 (test connection, saved config)'}
        </button>
        {doctorError ? <div class="error-box">{doctorError}</div> : null}
        {checks ? (
          <ul class="checks" data-checks>
            {checks.map((check) => (
              <li class={check.ok ? 'ok' : 'fail'}>
                {check.ok ? '✅' : '❌'} <strong>{check.name}</strong> {check.message ?? ''}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </section>
  )
}
