/**
 * Rows of objects (injected dialogue, fallbacks, regex rules, depth injections): one input per
 * property, add, remove and reorder. Columns come from the item schema, or from the rows' own keys
 * when there is no schema (processor options typed `json`).
 */
import type { ComponentChildren } from 'preact'
import type { ConfigIssue } from '../lib/config-issues.js'
import { translate } from '../lib/i18n.js'
import type { JsonSchemaNode } from '../lib/json-schema-node.js'
import { RemoveRowButton } from './remove-row-button.js'
import { SchemaField } from './schema-field.js'

export interface ObjectListEditorProps {
  path: string
  itemNode: JsonSchemaNode
  value: Record<string, unknown>[]
  onChange(value: Record<string, unknown>[]): void
  issues: ConfigIssue[]
  /** Extra content under a row (warnings). */
  renderRowExtra?(index: number): ComponentChildren
}

/** A new row from the item schema: defaults, the first enum value, or empty values by type. */
function createEmptyItem(itemNode: JsonSchemaNode): Record<string, unknown> {
  const item: Record<string, unknown> = {}
  for (const [key, node] of Object.entries(itemNode.properties ?? {})) {
    if (node.default !== undefined) item[key] = node.default
    else if (node.enum) item[key] = node.enum[0]
    else if (node.type === 'boolean') item[key] = true
    else if (node.type === 'number' || node.type === 'integer') item[key] = 0
    else item[key] = ''
  }
  return item
}

function moveItem<T>(list: T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length) return list
  const copy = [...list]
  const [item] = copy.splice(from, 1)
  copy.splice(to, 0, item as T)
  return copy
}

export function ObjectListEditor(props: ObjectListEditorProps) {
  const columns = Object.entries(props.itemNode.properties ?? {})
  return (
    <div class="list-editor" data-list={props.path}>
      {props.value.map((item, index) => (
        <div class="list-row" data-row={index}>
          <div class="list-row-fields">
            {columns.map(([key, node]) => (
              <SchemaField
                path={`${props.path}.${index}.${key}`}
                node={node}
                value={item[key]}
                issues={props.issues}
                compact
                onChange={(next) =>
                  props.onChange(props.value.map((row, at) => (at === index ? { ...row, [key]: next } : row)))
                }
              />
            ))}
          </div>
          <div class="list-row-actions">
            <button
              type="button"
              class="icon"
              title={translate('field.moveUp')}
              onClick={() => props.onChange(moveItem(props.value, index, index - 1))}
            >
              ↑
            </button>
            <button
              type="button"
              class="icon"
              title={translate('field.moveDown')}
              onClick={() => props.onChange(moveItem(props.value, index, index + 1))}
            >
              ↓
            </button>
            <RemoveRowButton onRemove={() => props.onChange(props.value.filter((_, at) => at !== index))} />
          </div>
          {props.renderRowExtra?.(index)}
        </div>
      ))}
      <button
        type="button"
        class="small"
        onClick={() => props.onChange([...props.value, createEmptyItem(props.itemNode)])}
      >
        {translate('field.addRow')}
      </button>
    </div>
  )
}
