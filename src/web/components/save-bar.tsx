import { translate } from '../lib/i18n.js'
import type { ConfigDraftResult } from '../lib/use-config-draft.js'
import { ConfigFileBanner } from './config-file-banner.js'
import { SaveErrorList } from './save-error-list.js'

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
        {translate(draft.saving ? 'save.saving' : 'save.save')}
      </button>
      <button type="button" disabled={!dirty || draft.saving} onClick={draft.reset}>
        {translate('save.undo')}
      </button>
      <span class="save-state">
        {dirty
          ? translate('save.unsaved', { sections: draft.changedSections.join(', ') })
          : translate('save.inSync')}
      </span>
      {draft.errorMessage ? <SaveErrorList message={draft.errorMessage} issues={draft.issues} /> : null}
      {draft.errorMessage ? <ConfigFileBanner onSave /> : null}
    </div>
  )
}
