/**
 * A button for something that cannot be undone (deleting a memory, a document, a session's history):
 * the first click only asks, in place, and the action runs on the second, explicit answer.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { translate } from '../lib/i18n.js'

export interface ConfirmButtonProps {
  /** The button's text before asking. */
  children: ComponentChildren
  /** The question shown after the first click. */
  question: string
  /** The text of the button that runs the action. */
  confirmLabel: string
  onConfirm(): void | Promise<void>
  /** `data-action` of the first button; the confirming one gets `<action>-confirm`. */
  action: string
  class?: string
}

export function ConfirmButton(props: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false)
  if (!asking) {
    return (
      <button
        type="button"
        class={props.class ?? 'small danger'}
        data-action={props.action}
        onClick={() => setAsking(true)}
      >
        {props.children}
      </button>
    )
  }
  return (
    <span class="confirm" role="alertdialog" data-confirm={props.action}>
      <span class="confirm-question">{props.question}</span>
      <button
        type="button"
        class="small danger"
        data-action={`${props.action}-confirm`}
        onClick={() => {
          setAsking(false)
          void props.onConfirm()
        }}
      >
        {props.confirmLabel}
      </button>
      <button
        type="button"
        class="small"
        data-action={`${props.action}-cancel`}
        onClick={() => setAsking(false)}
      >
        {translate('confirm.cancel')}
      </button>
    </span>
  )
}
