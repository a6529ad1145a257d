/**
 * A list of texts edited one item per row, with add and remove: for lists whose items are prose or
 * may hold commas (alternate greetings, lorebook keys), which a comma-separated field would cut apart.
 * Long items (greetings) get a multi-line field per row.
 */
import { translate } from '../lib/i18n.js'
import { RemoveRowButton } from './remove-row-button.js'

export interface TextListEditorProps {
  path: string
  value: string[]
  onChange(value: string[]): void
  /** One multi-line field per item. */
  multiline?: boolean
}

export function TextListEditor(props: TextListEditorProps) {
  const change = (index: number, text: string) =>
    props.onChange(props.value.map((item, at) => (at === index ? text : item)))
  return (
    <div class="text-list" data-text-list={props.path}>
      {props.value.map((item, index) => (
        <div class="text-list-row" data-row={index}>
          {props.multiline ? (
            <textarea
              name={`${props.path}.${index}`}
              rows={3}
              value={item}
              onInput={(event) => change(index, event.currentTarget.value)}
            />
          ) : (
            <input
              type="text"
              name={`${props.path}.${index}`}
              value={item}
              onInput={(event) => change(index, event.currentTarget.value)}
            />
          )}
          <RemoveRowButton onRemove={() => props.onChange(props.value.filter((_, at) => at !== index))} />
        </div>
      ))}
      <button type="button" class="small" data-add-item onClick={() => props.onChange([...props.value, ''])}>
        {translate('field.addItem')}
      </button>
    </div>
  )
}
