/** The knowledge base: documents chunked on the server, added as typed text or a file read here. */
import { useEffect, useState } from 'preact/hooks'
import { showToast } from '../components/toast.js'
import { requestJson } from '../lib/api-client.js'
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
      showToast(`已加入知识库 (added): ${answer?.chunks ?? '?'} chunks`)
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
      showToast('已删除 (removed)')
      await refresh()
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  return (
    <div class="knowledge" data-section="knowledge">
      <h3>知识库 Knowledge base</h3>
      <form class="stack-form" onSubmit={add}>
        <input
          type="text"
          name="kb-name"
          placeholder="名称 (name)"
          required
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <textarea
          name="kb-text"
          rows={4}
          placeholder="文本或 Markdown (text or Markdown)"
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
            加入知识库 (add)
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
            <strong>{document.name}</strong> <span class="badge">{document.chunks ?? '?'} chunks</span>{' '}
            <span>{formatTime(document.createdAt)}</span>
            <button
              type="button"
              class="small danger"
              data-action="kb-delete"
              onClick={() => void remove(document.id)}
            >
              删除
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}
