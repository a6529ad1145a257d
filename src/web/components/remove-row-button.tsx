/** The ✕ button of a list editor's row: removes that row. */
import { translate } from '../lib/i18n.js'

export function RemoveRowButton(props: { onRemove(): void }) {
  return (
    <button type="button" class="icon danger" title={translate('field.remove')} onClick={props.onRemove}>
      ✕
    </button>
  )
}
