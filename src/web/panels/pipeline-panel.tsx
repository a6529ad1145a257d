/**
 * The context pipeline: processors in priority order with enable toggles, priorities and option
 * forms from their `configFields`, then the tools the character may call. A changed processor is
 * saved as its whole effective settings under `pipeline.processors.<id>`, because that entry replaces
 * the model-level one rather than merging.
 */
import { useEffect, useState } from 'preact/hooks'
import { ConfigFileBanner } from '../components/config-file-banner.js'
import { ProcessorField, type ProcessorFieldInfo } from '../components/processor-field.js'
import { SaveErrorList } from '../components/save-error-list.js'
import { showToast } from '../components/toast.js'
import { ApiError, requestJson } from '../lib/api-client.js'
import { type ConfigIssue, findIssuesFor } from '../lib/config-issues.js'
import { refreshConfigStatus } from '../lib/config-status.js'
import { describeField, translate } from '../lib/i18n.js'
import { isJsonEqual } from '../lib/object-path.js'
import { readResponseList } from '../lib/read-response-list.js'
import type { ConfigObject } from '../lib/use-config-draft.js'
import { ClientsSection } from './clients-section.js'
import { ConnectorsSection } from './connectors-section.js'
import { ToolsSection } from './tools-section.js'

interface ProcessorInfo {
  id: string
  name: string
  description: string
  priority: number
  enabled: boolean
  isCore?: boolean
  configFields?: ProcessorFieldInfo[]
  settings?: Record<string, unknown>
}

type Settings = Record<string, unknown>

/** The settings a processor runs with: its effective settings plus enabled and priority. */
function readSettings(processor: ProcessorInfo): Settings {
  return { ...(processor.settings ?? {}), enabled: processor.enabled, priority: processor.priority }
}

export function PipelinePanel(props: { onSaved(config: ConfigObject): void }) {
  const [processors, setProcessors] = useState<ProcessorInfo[]>([])
  const [drafts, setDrafts] = useState<Record<string, Settings>>({})
  const [order, setOrder] = useState<string[]>([])
  const [issues, setIssues] = useState<ConfigIssue[]>([])
  const [errorMessage, setErrorMessage] = useState('')
  const [loadError, setLoadError] = useState('')
  const [saving, setSaving] = useState(false)

  const load = async () => {
    setLoadError('')
    try {
      const list = readResponseList<ProcessorInfo>(await requestJson<unknown>('GET', '/api/processors'))
      const sorted = [...list].sort(
        (left, right) => left.priority - right.priority || left.id.localeCompare(right.id),
      )
      setProcessors(sorted)
      setDrafts(Object.fromEntries(sorted.map((processor) => [processor.id, readSettings(processor)])))
      setOrder(sorted.map((processor) => processor.id))
    } catch (error) {
      setLoadError(
        translate('pipeline.loadFailed', { message: error instanceof Error ? error.message : String(error) }),
      )
    }
  }
  useEffect(() => {
    void load()
  }, [])

  const changed = processors.filter(
    (processor) => !isJsonEqual(drafts[processor.id], readSettings(processor)),
  )
  const update = (id: string, key: string, value: unknown) =>
    setDrafts((current) => ({ ...current, [id]: { ...current[id], [key]: value } }))

  /** Swaps priorities with the neighbour so the order shown is the order run. */
  const move = (index: number, offset: number) => {
    const otherIndex = index + offset
    const id = order[index]
    const otherId = order[otherIndex]
    if (!id || !otherId) return
    const priority = drafts[id]?.priority
    let otherPriority = drafts[otherId]?.priority
    if (priority === otherPriority) otherPriority = Number(priority) + offset
    setDrafts((current) => ({
      ...current,
      [id]: { ...current[id], priority: otherPriority },
      [otherId]: { ...current[otherId], priority },
    }))
    const next = [...order]
    next[index] = otherId
    next[otherIndex] = id
    setOrder(next)
  }

  const save = async () => {
    if (changed.length === 0) {
      showToast(translate('save.nothingChanged'))
      return
    }
    setSaving(true)
    setErrorMessage('')
    try {
      const entries = Object.fromEntries(changed.map((processor) => [processor.id, drafts[processor.id]]))
      const saved = await requestJson<ConfigObject>('PUT', '/api/config', {
        pipeline: { processors: entries },
      })
      setIssues([])
      props.onSaved(saved)
      showToast(translate('save.saved'))
      await load()
    } catch (error) {
      const apiError = error instanceof ApiError ? error : undefined
      setIssues(apiError?.issues ?? [])
      setErrorMessage(error instanceof Error ? error.message : String(error))
      showToast(translate('save.failedToast'), 'error')
      void refreshConfigStatus().catch(() => undefined)
    } finally {
      setSaving(false)
    }
  }

  return (
    <section class="panel" data-panel="pipeline">
      <h2>{translate('pipeline.title')}</h2>
      <p class="hint">{translate('pipeline.hint')}</p>
      {loadError ? (
        <div class="error-box" role="alert">
          {loadError}
        </div>
      ) : null}
      {order.map((id, index) => {
        const processor = processors.find((candidate) => candidate.id === id)
        const draft = drafts[id]
        if (!processor || !draft) return null
        const base = `pipeline.processors.${id}`
        const text = describeField({ path: base, label: processor.name, description: processor.description })
        return (
          <article class={`processor${draft.enabled ? '' : ' processor-off'}`} data-processor={id}>
            <header class="processor-head">
              <label class="toggle">
                <input
                  type="checkbox"
                  name={`${base}.enabled`}
                  checked={Boolean(draft.enabled)}
                  onChange={(event) => update(id, 'enabled', event.currentTarget.checked)}
                />
                <strong>{text.label}</strong>
              </label>
              <code>{id}</code>
              {processor.isCore ? <span class="badge">{translate('pipeline.core')}</span> : null}
              <span class="processor-priority">
                {translate('pipeline.priority')}
                <input
                  type="number"
                  name={`${base}.priority`}
                  value={String(draft.priority ?? '')}
                  onInput={(event) => update(id, 'priority', Number(event.currentTarget.value))}
                />
                <button
                  type="button"
                  class="icon"
                  title={translate('pipeline.earlier')}
                  onClick={() => move(index, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  class="icon"
                  title={translate('pipeline.later')}
                  onClick={() => move(index, 1)}
                >
                  ↓
                </button>
              </span>
            </header>
            <p class="hint">{text.hint}</p>
            {findIssuesFor(issues, base).map((error) => (
              <div class="field-error" data-error-for={base}>
                {translate('issue.fieldLead', { message: error })}
              </div>
            ))}
            {(processor.configFields ?? []).length > 0 ? (
              <div class="form-grid">
                {(processor.configFields ?? []).map((field) => (
                  <ProcessorField
                    path={`${base}.${field.key}`}
                    field={field}
                    value={draft[field.key]}
                    onChange={(value) => update(id, field.key, value)}
                    issues={issues}
                  />
                ))}
              </div>
            ) : null}
          </article>
        )
      })}
      <div class="save-bar">
        <button
          type="button"
          class="primary"
          data-action="save"
          disabled={saving}
          onClick={() => void save()}
        >
          {translate(saving ? 'save.saving' : 'save.save')}
        </button>
        <button type="button" disabled={changed.length === 0} onClick={() => void load()}>
          {translate('save.undo')}
        </button>
        <span class="save-state">
          {changed.length > 0
            ? translate('save.unsaved', { sections: changed.map((processor) => processor.id).join(', ') })
            : translate('save.inSync')}
        </span>
        {errorMessage ? <SaveErrorList message={errorMessage} issues={issues} /> : null}
        {errorMessage ? <ConfigFileBanner onSave /> : null}
      </div>
      <ToolsSection onSaved={props.onSaved} />
      <ConnectorsSection />
      <ClientsSection />
    </section>
  )
}
