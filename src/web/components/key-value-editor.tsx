import { useEffect, useState } from 'preact/hooks'
import { translate } from '../lib/i18n.js'

export interface KeyValueEditorProps {
  path: string
  value: Record<string, string>
  onChange(value: Record<string, string>): void
}

type Row = [key: string, value: string]

function toRecord(rows: Row[]): Record<string, string> {
  const record: Record<string, string> = {}
  for (const [key, value] of rows) if (key.trim() !== '') record[key.trim()] = value
  return record
}

/** Rows of key → value (emotion aliases, user emotion map); rows with an empty key are left out. */
export function KeyValueEditor(props: KeyValueEditorProps) {
  const [rows, setRows] = useState<Row[]>(Object.entries(props.value))
  useEffect(() => {
    if (JSON.stringify(toRecord(rows)) !== JSON.stringify(props.value)) setRows(Object.entries(props.value))
  }, [JSON.stringify(props.value)])
  const update = (next: Row[]) => {
    setRows(next)
    props.onChange(toRecord(next))
  }
  return (
    <div class="kv-editor" data-list={props.path}>
      {rows.map(([key, value], index) => (
        <div class="kv-row">
          <input
            type="text"
            aria-label={translate('field.key')}
            value={key}
            onInput={(event) =>
              update(rows.map((row, at) => (at === index ? [event.currentTarget.value, row[1]] : row)))
            }
          />
          <span class="kv-arrow">→</span>
          <input
            type="text"
            aria-label={translate('field.value')}
            value={value}
            onInput={(event) =>
              update(rows.map((row, at) => (at === index ? [row[0], event.currentTarget.value] : row)))
            }
          />
          <button
            type="button"
            class="icon"
            title={translate('field.remove')}
            onClick={() => update(rows.filter((_, at) => at !== index))}
          >
            ✕
          </button>
        </div>
      ))}
      <button type="button" class="small" onClick={() => update([...rows, ['', '']])}>
        {translate('field.addPair')}
      </button>
    </div>
  )
}
