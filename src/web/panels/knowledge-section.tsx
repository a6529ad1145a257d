/** The knowledge base: documents chunked on the server, added as typed text or a file read here. */
import { useEffect, useState } from 'preact/hooks'
import { ConfirmButton } from '../components/confirm-button.js'
import { showToast } from '../components/toast.js'
import { requestJson } from '../lib/api-client.js'
import { translate } from '../lib/i18n.js'
import { formatTime, readResponseList } from '../lib/read-response-list.js'

interface KnowledgeDocument {
  id: string
  name: string
  chunks?: number
  createdAt?: unknown
}

export function KnowledgeSection() {
  const [documents, setDocuments] = useState<KnowledgeDocument[]>([])
  const [name, setName] = useState('')
  const [text, setText] = useState('')
  const [errorMessage, setErrorMessage] = useState('')
  const refresh = async () => {
    try {
      setDocuments(readResponseList<KnowledgeDocument>(await requestJson('GET', '/api/kb')))
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  useEffect(() => {
    void refresh()
  }, [])
  const readFile = async (file: File | undefined) => {
    if (!file) return
    setText(await file.text())
    if (!name) setName(file.name)
  }
  const add = async (event: Event) => {
    event.preventDefault()
    setErrorMessage('')
    try {
      const answer = await requestJson<{ chunks?: number }>('POST', '/api/kb', { name, text })
      showToast(translate('kb.added', { chunks: answer?.chunks ?? '?' }))
      setName('')
      setText('')
      await refresh()
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  const remove = async (id: string) => {
    try {
      await requestJson('DELETE', `/api/kb/${encodeURIComponent(id)}`)
      showToast(translate('kb.deleted'))
      await refresh()
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  return (
    <div class="knowledge" data-section="knowledge">
      <h3>{translate('kb.title')}</h3>
      <form class="stack-form" onSubmit={add}>
        <input
          type="text"
          name="kb-name"
          placeholder={translate('kb.name')}
          required
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <textarea
          name="kb-text"
          rows={4}
          placeholder={translate('kb.text')}
          required
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <div class="inline-form">
          <input
            type="file"
            name="kb-file"
            accept=".txt,.md,.markdown,text/*"
            onChange={(event) => void readFile(event.currentTarget.files?.[0])}
          />
          <button type="submit" data-action="kb-add">
            {translate('kb.add')}
          </button>
        </div>
      </form>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {errorMessage}
        </div>
      ) : null}
      <ul class="kb-list">
        {documents.map((document) => (
          <li data-kb-id={document.id}>
            <strong>{document.name}</strong>{' '}
            <span class="badge">{translate('kb.chunks', { chunks: document.chunks ?? '?' })}</span>{' '}
            <span>{formatTime(document.createdAt)}</span>{' '}
            <ConfirmButton
              action="kb-delete"
              question={translate('kb.deleteConfirm', { name: document.name })}
              confirmLabel={translate('kb.deleteYes')}
              onConfirm={() => remove(document.id)}
            >
              {translate('kb.delete')}
            </ConfirmButton>
          </li>
        ))}
      </ul>
    </div>
  )
}
