/**
 * One option of a processor, rendered from its `configFields` entry (text, textarea, number,
 * boolean, select, json). A json option holding a list of objects (regex rules, depth injections)
 * gets the row editor, with the raw JSON one click away.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { type ConfigIssue, findIssuesFor } from '../lib/config-issues.js'
import { describeField, describeOption, translate } from '../lib/i18n.js'
import { inferItemNode } from '../lib/infer-item-node.js'
import { FieldShell } from './field-shell.js'
import { JsonTextArea } from './json-text-area.js'
import { ObjectListEditor } from './object-list-editor.js'
import { readNumberInput } from './schema-field.js'

/** The `ProcessorConfigField` shape of `GET /api/processors`. */
export interface ProcessorFieldInfo {
  key: string
  label: string
  type?: 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'json'
  description?: string
  placeholder?: string
  default?: unknown
  options?: { label: string; value: unknown }[]
  min?: number
  max?: number
  integer?: boolean
}

export interface ProcessorFieldProps {
  path: string
  field: ProcessorFieldInfo
  value: unknown
  onChange(value: unknown): void
  issues: ConfigIssue[]
}

export function ProcessorField(props: ProcessorFieldProps) {
  const { field } = props
  const [raw, setRaw] = useState(false)
  const value = props.value ?? field.default
  const errors = findIssuesFor(props.issues, props.path, { below: field.type !== 'json' })
  const text = describeField({ path: props.path, label: field.label, description: field.description })
  const shell = (control: ComponentChildren, wide = false) => (
    <FieldShell path={props.path} label={text.label} hint={text.hint} errors={errors} wide={wide}>
      {control}
    </FieldShell>
  )
  switch (field.type) {
    case 'boolean':
      return shell(
        <input
          type="checkbox"
          name={props.path}
          id={`f-${props.path}`}
          checked={Boolean(value)}
          onChange={(event) => props.onChange(event.currentTarget.checked)}
        />,
      )
    case 'number':
      return shell(
        <input
          type="number"
          name={props.path}
          id={`f-${props.path}`}
          step={field.integer ? '1' : 'any'}
          min={field.min}
          max={field.max}
          placeholder={field.placeholder}
          value={value === undefined ? '' : String(value)}
          onInput={(event) => props.onChange(readNumberInput(event.currentTarget.value))}
        />,
      )
    case 'select': {
      const options = field.options ?? []
      const index = options.findIndex((option) => JSON.stringify(option.value) === JSON.stringify(value))
      return shell(
        <select
          name={props.path}
          id={`f-${props.path}`}
          value={String(index)}
          onChange={(event) => props.onChange(options[Number(event.currentTarget.value)]?.value)}
        >
          {index === -1 ? <option value="-1">—</option> : null}
          {options.map((option, at) => (
            <option value={String(at)}>
              {describeOption({ path: props.path, value: option.value, label: option.label })}
            </option>
          ))}
        </select>,
      )
    }
    case 'textarea':
      return shell(
        <textarea
          name={props.path}
          id={`f-${props.path}`}
          rows={4}
          placeholder={field.placeholder}
          value={String(value ?? '')}
          onInput={(event) => props.onChange(event.currentTarget.value)}
        />,
        true,
      )
    case 'json': {
      const rows = Array.isArray(value) ? value : undefined
      const itemNode = rows ? inferItemNode(field.key, rows) : undefined
      const toggle = itemNode ? (
        <button type="button" class="small link" onClick={() => setRaw(!raw)}>
          {translate(raw ? 'field.editRows' : 'field.editJson')}
        </button>
      ) : null
      return shell(
        <div>
          {toggle}
          {itemNode && !raw ? (
            <ObjectListEditor
              path={props.path}
              itemNode={itemNode}
              value={rows as Record<string, unknown>[]}
              onChange={props.onChange}
              issues={props.issues}
            />
          ) : (
            <JsonTextArea path={props.path} value={value} onChange={props.onChange} />
          )}
        </div>,
        true,
      )
    }
    default:
      return shell(
        <input
          type="text"
          name={props.path}
          id={`f-${props.path}`}
          placeholder={field.placeholder}
          value={String(value ?? '')}
          onInput={(event) => props.onChange(event.currentTarget.value)}
        />,
      )
  }
}
