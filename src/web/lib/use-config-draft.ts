/**
 * A panel's working copy of some config sections. Saving sends `PUT /api/config` with only the
 * sections that changed; the server validates and either applies (the masked config comes back and
 * replaces the draft) or answers 400 with field issues, which the panel shows next to the fields.
 */
import { useMemo, useState } from 'preact/hooks'
import { showToast } from '../components/toast.js'
import { ApiError, requestJson } from './api-client.js'
import type { ConfigIssue } from './config-issues.js'
import { refreshConfigStatus } from './config-status.js'
import { createMergePatch } from './create-merge-patch.js'
import { translate } from './i18n.js'
import { getAtPath, isJsonEqual, setAtPath } from './object-path.js'

export type ConfigObject = Record<string, unknown>

export interface ConfigDraftOptions {
  config: ConfigObject
  sections: string[]
  onSaved(config: ConfigObject): void
}

export interface ConfigDraftResult {
  draft: ConfigObject
  get(path: string): unknown
  set(path: string, value: unknown): void
  changedSections: string[]
  issues: ConfigIssue[]
  saving: boolean
  /** The server's reason for refusing the last save (shown with a translated lead). */
  errorMessage: string
  save(): Promise<boolean>
  reset(): void
}

function pickSections(config: ConfigObject, sections: string[]): ConfigObject {
  return Object.fromEntries(sections.map((section) => [section, structuredClone(config[section])]))
}

export function useConfigDraft(options: ConfigDraftOptions): ConfigDraftResult {
  const fresh = useMemo(() => pickSections(options.config, options.sections), [options.config])
  // Edits belong to the config they were made on. A new config (saved, reloaded, a character added)
  // replaces them in the same render: resetting in an effect would first paint the new character's
  // fields from the old draft, empty.
  const [edited, setEdited] = useState<{ source: ConfigObject; draft: ConfigObject } | undefined>()
  const draft = edited?.source === options.config ? edited.draft : fresh
  const [issues, setIssues] = useState<ConfigIssue[]>([])
  const [saving, setSaving] = useState(false)
  const [errorMessage, setErrorMessage] = useState('')

  const changedSections = options.sections.filter(
    (section) => !isJsonEqual(draft[section], options.config[section]),
  )

  const save = async (): Promise<boolean> => {
    if (changedSections.length === 0) {
      showToast(translate('save.nothingChanged'))
      return true
    }
    setSaving(true)
    setErrorMessage('')
    try {
      const body = Object.fromEntries(
        changedSections.map((section) => [
          section,
          createMergePatch(draft[section], options.config[section]),
        ]),
      )
      const saved = await requestJson<ConfigObject>('PUT', '/api/config', body)
      setIssues([])
      options.onSaved(saved)
      showToast(translate('save.saved'))
      return true
    } catch (error) {
      const apiError = error instanceof ApiError ? error : undefined
      setIssues(apiError?.issues ?? [])
      setErrorMessage(apiError ? apiError.message : String(error))
      showToast(translate('save.failedToast'), 'error')
      // A save can fail because the file on disk is broken: the banner then says which field.
      void refreshConfigStatus().catch(() => undefined)
      return false
    } finally {
      setSaving(false)
    }
  }

  return {
    draft,
    get: (path) => getAtPath(draft, path),
    set: (path, value) =>
      setEdited((current) => ({
        source: options.config,
        draft: setAtPath(current?.source === options.config ? current.draft : fresh, path, value),
      })),
    changedSections,
    issues,
    saving,
    errorMessage,
    save,
    reset: () => {
      setEdited(undefined)
      setIssues([])
      setErrorMessage('')
    },
  }
}
