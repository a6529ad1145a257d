import type { ConfigDraftResult } from '../lib/use-config-draft.js'

/** Save and undo for a settings panel, with every issue of a rejected save listed by path. */
export function SaveBar(props: { draft: ConfigDraftResult }) {
  const { draft } = props
  const dirty = draft.changedSections.length > 0
  return (
    <div class="save-bar">
      <button
        type="button"
        class="primary"
        data-action="save"
        disabled={draft.saving}
        onClick={() => void draft.save()}
      >
        {draft.saving ? '保存中… (saving)' : '保存 (save)'}
      </button>
      <button type="button" disabled={!dirty || draft.saving} onClick={draft.reset}>
        撤销 (undo)
      </button>
      <span class="save-state">
        {dirty ? `未保存的改动 (unsaved): ${draft.changedSections.join(', ')}` : '已同步 (in sync)'}
      </span>
      {draft.errorMessage ? (
        <div class="save-error" role="alert">
          <div>{draft.errorMessage}</div>
          {draft.issues.length > 0 ? (
            <ul>
              {draft.issues.map((issue) => (
                <li>
                  <code>{issue.path || '(config)'}</code> {issue.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
