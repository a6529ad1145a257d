import { useEffect, useState } from 'preact/hooks'
import { translate } from '../lib/i18n.js'

export interface JsonTextAreaProps {
  path: string
  value: unknown
  onChange(value: unknown): void
  rows?: number
}

/** Edits any JSON value as text; text that does not parse is flagged here and not passed on. */
export function JsonTextArea(props: JsonTextAreaProps) {
  const serialized = props.value === undefined ? '' : JSON.stringify(props.value, null, 2)
  const [text, setText] = useState(serialized)
  const [problem, setProblem] = useState('')
  useEffect(() => {
    // Follow outside changes (a reload) unless the text already means the same value.
    try {
      if (JSON.stringify(text.trim() ? JSON.parse(text) : undefined) === JSON.stringify(props.value)) return
    } catch {
      // The text is mid-edit and invalid: an outside change still replaces it.
    }
    setText(serialized)
    setProblem('')
  }, [serialized])
  return (
    <div class="json-area">
      <textarea
        name={props.path}
        id={`f-${props.path}`}
        rows={props.rows ?? Math.min(12, Math.max(3, text.split('\n').length))}
        spellcheck={false}
        value={text}
        onInput={(event) => {
          const next = event.currentTarget.value
          setText(next)
          try {
            props.onChange(next.trim() ? JSON.parse(next) : undefined)
            setProblem('')
          } catch (error) {
            setProblem(
              translate('field.invalidJson', {
                message: error instanceof Error ? error.message : String(error),
              }),
            )
          }
        }}
      />
      {problem ? <div class="field-error">{problem}</div> : null}
    </div>
  )
}
