import { useEffect, useState } from 'preact/hooks'

interface ToastMessage {
  id: number
  text: string
  kind: 'success' | 'error'
}

type ToastListener = (message: ToastMessage) => void
const listeners = new Set<ToastListener>()
let nextId = 1

/** Shows a short message at the bottom of the page (saved, failed). */
export function showToast(text: string, kind: ToastMessage['kind'] = 'success'): void {
  const message = { id: nextId++, text, kind }
  for (const listener of listeners) listener(message)
}

export function ToastArea() {
  const [messages, setMessages] = useState<ToastMessage[]>([])
  useEffect(() => {
    const listener: ToastListener = (message) => {
      setMessages((current) => [...current, message])
      setTimeout(() => setMessages((current) => current.filter((item) => item.id !== message.id)), 4000)
    }
    listeners.add(listener)
    return () => listeners.delete(listener)
  }, [])
  return (
    <div class="toasts" aria-live="polite">
      {messages.map((message) => (
        <div class={`toast toast-${message.kind}`} role="status">
          {message.text}
        </div>
      ))}
    </div>
  )
}
