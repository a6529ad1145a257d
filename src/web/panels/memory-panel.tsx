/** Long-term memory: add, search, list by scope, edit, delete and the change history of one memory. */
import { useEffect, useState } from 'preact/hooks'
import { memoryScopeOf } from '../../memory/memory-scope-of.js'
import { ConfirmButton } from '../components/confirm-button.js'
import { showToast } from '../components/toast.js'
import { requestJson } from '../lib/api-client.js'
import { translate } from '../lib/i18n.js'
import { formatTime, readResponseList } from '../lib/read-response-list.js'
import { KnowledgeSection } from './knowledge-section.js'
import { PeopleSection } from './people-section.js'

interface MemoryItem {
  id: string
  text: string
  score?: number
  time?: unknown
  speaker?: string
  metadata?: Record<string, unknown>
}

type HistoryEntry = Record<string, unknown>

function MemoryRow(props: { item: MemoryItem; onChanged(): void }) {
  const { item } = props
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState(item.text)
  const [history, setHistory] = useState<HistoryEntry[] | undefined>()
  const [errorMessage, setErrorMessage] = useState('')
  const act = async (action: () => Promise<void>) => {
    setErrorMessage('')
    try {
      await action()
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  const path = `/api/memory/${encodeURIComponent(item.id)}`
  return (
    <li class="memory-item" data-memory-id={item.id}>
      {editing ? (
        <textarea
          rows={3}
          name="memory-edit"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      ) : (
        <div class="memory-text">{item.text}</div>
      )}
      <div class="memory-meta">
        {item.score !== undefined ? <span class="badge">score {Number(item.score).toFixed(3)}</span> : null}
        {item.speaker ? <span class="badge">{item.speaker}</span> : null}
        <span>{formatTime(item.time)}</span>
        {item.metadata && Object.keys(item.metadata).length > 0 ? (
          <code>{JSON.stringify(item.metadata)}</code>
        ) : null}
        <code class="memory-id">{item.id}</code>
      </div>
      <div class="row-actions">
        {editing ? (
          <>
            <button
              type="button"
              class="primary small"
              data-action="memory-save"
              onClick={() =>
                act(async () => {
                  await requestJson('PATCH', path, { text })
                  setEditing(false)
                  showToast(translate('memory.updated'))
                  props.onChanged()
                })
              }
            >
              {translate('memory.save')}
            </button>
            <button type="button" class="small" onClick={() => setEditing(false)}>
              {translate('memory.cancel')}
            </button>
          </>
        ) : (
          <button type="button" class="small" data-action="memory-edit" onClick={() => setEditing(true)}>
            {translate('memory.edit')}
          </button>
        )}
        <button
          type="button"
          class="small"
          data-action="memory-history"
          onClick={() =>
            act(async () =>
              setHistory(readResponseList<HistoryEntry>(await requestJson('GET', `${path}/history`))),
            )
          }
        >
          {translate('memory.history')}
        </button>
        <ConfirmButton
          action="memory-delete"
          question={translate('memory.deleteConfirm')}
          confirmLabel={translate('memory.deleteYes')}
          onConfirm={() =>
            act(async () => {
              await requestJson('DELETE', path)
              showToast(translate('memory.deleted'))
              props.onChanged()
            })
          }
        >
          {translate('memory.delete')}
        </ConfirmButton>
      </div>
      {errorMessage ? <div class="field-error">{errorMessage}</div> : null}
      {history ? (
        <ul class="memory-history">
          {history.length === 0 ? <li>{translate('memory.noChanges')}</li> : null}
          {history.map((entry) => (
            <li>
              <span class="badge">{String(entry.event ?? '')}</span> {formatTime(entry.time)}{' '}
              {entry.oldText ? <del>{String(entry.oldText)}</del> : null}{' '}
              {entry.newText ? <ins>{String(entry.newText)}</ins> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  )
}

export function MemoryPanel(props: { session: string; character?: string }) {
  // A character of `characters` keeps its memories under `<id>:<session>` (docs/characters.md).
  const [scope, setScope] = useState(
    memoryScopeOf({ session: props.session, ...(props.character ? { character: props.character } : {}) }),
  )
  const [query, setQuery] = useState('')
  const [limit, setLimit] = useState(10)
  const [items, setItems] = useState<MemoryItem[]>([])
  const [mode, setMode] = useState<'list' | 'search'>('list')
  const [newText, setNewText] = useState('')
  const [newSpeaker, setNewSpeaker] = useState('')
  const [errorMessage, setErrorMessage] = useState('')
  const [revision, setRevision] = useState(0)

  const refresh = async () => {
    setErrorMessage('')
    try {
      const body =
        mode === 'search' && query.trim()
          ? await requestJson(
              'GET',
              `/api/memory/search?q=${encodeURIComponent(query)}&scope=${encodeURIComponent(scope)}&k=${limit}`,
            )
          : await requestJson('GET', `/api/memory?scope=${encodeURIComponent(scope)}`)
      setItems(readResponseList<MemoryItem>(body))
    } catch (error) {
      setItems([])
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  useEffect(() => {
    void refresh()
  }, [mode, revision])

  const add = async (event: Event) => {
    event.preventDefault()
    if (!newText.trim()) return
    setErrorMessage('')
    try {
      const body: Record<string, unknown> = { scope, text: newText }
      if (newSpeaker) body.speaker = newSpeaker
      await requestJson('POST', '/api/memory', body)
      setNewText('')
      showToast(translate('memory.added'))
      setRevision(revision + 1)
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }

  return (
    <section class="panel" data-panel="memory">
      <h2>{translate('memory.title')}</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault()
          setMode(query.trim() ? 'search' : 'list')
          setRevision(revision + 1)
        }}
      >
        <input
          type="text"
          name="memory-scope"
          class="narrow"
          title={translate('memory.scope')}
          placeholder="scope"
          value={scope}
          onInput={(event) => setScope(event.currentTarget.value)}
        />
        <input
          type="search"
          name="memory-query"
          placeholder={translate('memory.searchPlaceholder')}
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <input
          type="number"
          name="memory-k"
          class="narrow"
          min={1}
          title="k"
          value={String(limit)}
          onInput={(event) => setLimit(Number(event.currentTarget.value) || 10)}
        />
        <button type="submit" class="primary" data-action="memory-search">
          {translate(query.trim() ? 'memory.search' : 'memory.list')}
        </button>
      </form>
      <form class="inline-form" onSubmit={add}>
        <input
          type="text"
          name="memory-new-text"
          placeholder={translate('memory.newPlaceholder')}
          value={newText}
          onInput={(event) => setNewText(event.currentTarget.value)}
        />
        <input
          type="text"
          name="memory-new-speaker"
          class="narrow"
          placeholder={translate('memory.speaker')}
          value={newSpeaker}
          onInput={(event) => setNewSpeaker(event.currentTarget.value)}
        />
        <button type="submit" data-action="memory-add">
          {translate('memory.add')}
        </button>
      </form>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {errorMessage}
        </div>
      ) : null}
      <p class="hint">
        {mode === 'search'
          ? translate('memory.results', { count: items.length })
          : translate('memory.count', { scope, count: items.length })}
      </p>
      <ul class="memory-list">
        {items.map((item) => (
          <MemoryRow
            key={`${item.id}:${item.text}`}
            item={item}
            onChanged={() => setRevision(revision + 1)}
          />
        ))}
      </ul>
      <PeopleSection {...(props.character ? { character: props.character } : {})} />
      <KnowledgeSection />
    </section>
  )
}
