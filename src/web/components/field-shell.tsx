import type { ComponentChildren } from 'preact'
import { translate } from '../lib/i18n.js'

export interface FieldShellProps {
  /** Dotted config path; tests and the error mapping find the field by it. */
  path: string
  label: string
  hint?: string
  errors?: string[]
  children: ComponentChildren
  wide?: boolean
}

/** A labelled field with its description and, under it, the errors the server reported for it. */
export function FieldShell(props: FieldShellProps) {
  const hasErrors = (props.errors?.length ?? 0) > 0
  return (
    <div
      class={`field${hasErrors ? ' field-invalid' : ''}${props.wide ? ' field-wide' : ''}`}
      data-field={props.path}
    >
      <label class="field-label" htmlFor={`f-${props.path}`}>
        <span>{props.label}</span>
        <code class="field-key">{props.path.split('.').pop()}</code>
      </label>
      {props.children}
      {props.hint ? <small class="field-hint">{props.hint}</small> : null}
      {hasErrors
        ? props.errors?.map((error) => (
            <div class="field-error" role="alert" data-error-for={props.path}>
              {translate('issue.fieldLead', { message: error })}
            </div>
          ))
        : null}
    </div>
  )
}
