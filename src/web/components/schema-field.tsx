/**
 * One config field rendered from its JSON Schema node: select for enums, checkbox for booleans,
 * number inputs with the schema's bounds, password inputs for secrets, list and key/value editors,
 * and a JSON text area for anything else. Errors for the path (from a rejected save) show under it.
 */
import type { ComponentChildren } from 'preact'
import { type ConfigIssue, findIssuesFor } from '../lib/config-issues.js'
import { describeField, translate } from '../lib/i18n.js'
import { isNumberNode, type JsonSchemaNode, unwrapNullable } from '../lib/json-schema-node.js'
import { FieldShell } from './field-shell.js'
import { JsonTextArea } from './json-text-area.js'
import { KeyValueEditor } from './key-value-editor.js'
import { ObjectListEditor } from './object-list-editor.js'
import { TextListEditor } from './text-list-editor.js'

const secretKeys = new Set(['api_key', 'token', 'admin_token', 'redis_url', 'postgres_url'])
const multilineKeys = new Set(['persona', 'content', 'greeting', 'scenario'])
/** Lists of texts that may hold commas: one item per row. Greetings are prose: a multi-line row each. */
const rowListKeys = new Set(['alternate_greetings', 'keys', 'secondary_keys'])
const multilineListKeys = new Set(['alternate_greetings'])

export interface SchemaFieldProps {
  path: string
  node: JsonSchemaNode | undefined
  value: unknown
  onChange(value: unknown): void
  issues: ConfigIssue[]
  placeholder?: string
  /** Hides the schema description (compact rows). */
  compact?: boolean
  /** The path whose label and hint to show, when `path` is another place of the same field. */
  textPath?: string
}

/** Reads a number input: a number when it parses, else the raw text so the server names the problem. */
export function readNumberInput(text: string): number | string | undefined {
  if (text.trim() === '') return undefined
  const number = Number(text)
  return Number.isFinite(number) ? number : text
}

export function SchemaField(props: SchemaFieldProps) {
  const node = unwrapNullable(props.node)
  const key = props.path.split('.').pop() ?? props.path
  const text = describeField({ path: props.textPath ?? props.path, description: node?.description })
  const label = text.label
  const isRecord =
    node?.type === 'object' && typeof node.additionalProperties === 'object' && !node.properties
  const isObjectList = node?.type === 'array' && node.items?.type === 'object'
  const errors = findIssuesFor(props.issues, props.path, { below: !isObjectList })
  const hint = props.compact ? undefined : text.hint
  const shell = (control: ComponentChildren, wide = false) => (
    <FieldShell path={props.path} label={label} hint={hint} errors={errors} wide={wide}>
      {control}
    </FieldShell>
  )
  const defaultText = node?.default === undefined || node.default === '' ? undefined : String(node.default)

  if (node?.enum) {
    return shell(
      <select
        name={props.path}
        id={`f-${props.path}`}
        value={String(props.value ?? node.default ?? '')}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        {node.enum.map((option) => (
          <option value={String(option)}>{String(option)}</option>
        ))}
      </select>,
    )
  }
  if (node?.type === 'boolean') {
    return shell(
      <input
        type="checkbox"
        name={props.path}
        id={`f-${props.path}`}
        checked={Boolean(props.value ?? node.default)}
        onChange={(event) => props.onChange(event.currentTarget.checked)}
      />,
    )
  }
  if (isNumberNode(node)) {
    return shell(
      <input
        type="number"
        name={props.path}
        id={`f-${props.path}`}
        step={node?.type === 'integer' ? 1 : 'any'}
        min={node?.minimum}
        max={node?.maximum}
        placeholder={props.placeholder ?? defaultText}
        value={props.value === undefined ? '' : String(props.value)}
        onInput={(event) => props.onChange(readNumberInput(event.currentTarget.value))}
      />,
    )
  }
  if (node?.type === 'string') {
    if (multilineKeys.has(key)) {
      return shell(
        <textarea
          name={props.path}
          id={`f-${props.path}`}
          rows={key === 'persona' ? 6 : key === 'content' ? 2 : 4}
          placeholder={props.placeholder}
          value={String(props.value ?? '')}
          onInput={(event) => props.onChange(event.currentTarget.value)}
        />,
        true,
      )
    }
    const isSecret = secretKeys.has(key)
    return shell(
      <input
        type={isSecret ? 'password' : 'text'}
        name={props.path}
        id={`f-${props.path}`}
        autocomplete={isSecret ? 'new-password' : 'off'}
        placeholder={props.placeholder ?? (isSecret ? translate('field.secretUnset') : defaultText)}
        title={isSecret && props.value === '***' ? translate('field.secretStored') : undefined}
        value={String(props.value ?? '')}
        onInput={(event) => props.onChange(event.currentTarget.value)}
      />,
    )
  }
  if (node?.type === 'array' && node.items?.type === 'string' && rowListKeys.has(key)) {
    return shell(
      <TextListEditor
        path={props.path}
        value={Array.isArray(props.value) ? (props.value as string[]) : []}
        multiline={multilineListKeys.has(key)}
        onChange={(list) => props.onChange(list)}
      />,
      true,
    )
  }
  if (node?.type === 'array' && node.items?.type === 'string' && !node.items.enum) {
    const list = Array.isArray(props.value) ? (props.value as string[]) : []
    return shell(
      <input
        type="text"
        name={props.path}
        id={`f-${props.path}`}
        value={list.join(', ')}
        placeholder={translate('field.commaSeparated')}
        onChange={(event) =>
          props.onChange(
            event.currentTarget.value
              .split(/[,，]/)
              .map((item) => item.trim())
              .filter((item) => item !== ''),
          )
        }
      />,
      true,
    )
  }
  if (node?.type === 'array' && node.items?.enum) {
    const list = Array.isArray(props.value) ? (props.value as unknown[]) : []
    return shell(
      <div class="checkbox-group">
        {node.items.enum.map((option) => (
          <label>
            <input
              type="checkbox"
              checked={list.includes(option)}
              onChange={(event) =>
                props.onChange(
                  event.currentTarget.checked ? [...list, option] : list.filter((item) => item !== option),
                )
              }
            />{' '}
            {String(option)}
          </label>
        ))}
      </div>,
    )
  }
  if (isRecord) {
    return shell(
      <KeyValueEditor
        path={props.path}
        value={(props.value as Record<string, string>) ?? {}}
        onChange={props.onChange}
      />,
      true,
    )
  }
  if (isObjectList && node?.items) {
    return shell(
      <ObjectListEditor
        path={props.path}
        itemNode={node.items}
        value={Array.isArray(props.value) ? (props.value as Record<string, unknown>[]) : []}
        onChange={props.onChange}
        issues={props.issues}
      />,
      true,
    )
  }
  return shell(<JsonTextArea path={props.path} value={props.value} onChange={props.onChange} />, true)
}
