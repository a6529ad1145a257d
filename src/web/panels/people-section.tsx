/**
 * The people of the character's memory (`memory.per_person`, docs/people.md): who spoke to it, what
 * is kept about each, linking the ids one person has on different sources, export and erasure.
 */
import { useEffect, useState } from 'preact/hooks'
import { ConfirmButton } from '../components/confirm-button.js'
import { showToast } from '../components/toast.js'
import { requestJson } from '../lib/api-client.js'
import { translate } from '../lib/i18n.js'
import { formatTime, readResponseList } from '../lib/read-response-list.js'

interface Person {
  id: string
  names: string[]
  links: string[]
  memories: number
  last_seen: string | null
}

interface PersonMemory {
  id: string
  text: string
  time: string
}

function PersonRow(props: { person: Person; query: string; onChanged(): void }) {
  const { person, query } = props
  const [memories, setMemories] = useState<PersonMemory[] | undefined>()
  const [linkId, setLinkId] = useState('')
  const [withHistory, setWithHistory] = useState(false)
  const [errorMessage, setErrorMessage] = useState('')
  const path = `/api/people/${encodeURIComponent(person.id)}`
  const act = async (action: () => Promise<void>) => {
    setErrorMessage('')
    try {
      await action()
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  const loadMemories = async () =>
    setMemories(readResponseList<PersonMemory>(await requestJson('GET', `${path}/memories${query}`)))
  const download = async () => {
    const exported = await requestJson('GET', `${path}/export${query}`)
    const url = URL.createObjectURL(
      new Blob([JSON.stringify(exported, null, 2)], { type: 'application/json' }),
    )
    const anchor = document.createElement('a')
    anchor.href = url
    anchor.download = `${person.id.replace(/[^\w.-]+/g, '_')}.json`
    anchor.click()
    URL.revokeObjectURL(url)
  }
  return (
    <li class="memory-item" data-person-id={person.id}>
      <div class="memory-text">
        <strong>{person.id}</strong> {person.names.join(', ')}
      </div>
      <div class="memory-meta">
        <span class="badge">{translate('people.memories', { count: person.memories })}</span>
        <span>{formatTime(person.last_seen)}</span>
        {person.links.map((link) => (
          <span class="badge" data-link={link}>
            {link}{' '}
            <button
              type="button"
              class="small"
              data-action="person-unlink"
              onClick={() =>
                act(async () => {
                  await requestJson('DELETE', `${path}/links/${encodeURIComponent(link)}${query}`)
                  props.onChanged()
                })
              }
            >
              ×
            </button>
          </span>
        ))}
      </div>
      <div class="row-actions">
        <button type="button" class="small" data-action="person-memories" onClick={() => act(loadMemories)}>
          {translate('people.show')}
        </button>
        <button type="button" class="small" data-action="person-export" onClick={() => act(download)}>
          {translate('people.export')}
        </button>
        <input
          type="text"
          name="person-link"
          placeholder={translate('people.linkPlaceholder')}
          value={linkId}
          onInput={(event) => setLinkId(event.currentTarget.value)}
        />
        <button
          type="button"
          class="small"
          data-action="person-link"
          disabled={linkId.trim() === ''}
          onClick={() =>
            act(async () => {
              await requestJson('POST', `${path}/links${query}`, { ids: [linkId.trim()] })
              setLinkId('')
              props.onChanged()
            })
          }
        >
          {translate('people.link')}
        </button>
        <label>
          <input
            type="checkbox"
            name="person-erase-history"
            checked={withHistory}
            onChange={(event) => setWithHistory(event.currentTarget.checked)}
          />{' '}
          {translate('people.withHistory')}
        </label>
        <ConfirmButton
          action="person-erase"
          question={translate('people.eraseConfirm', { id: person.id })}
          confirmLabel={translate('people.eraseYes')}
          onConfirm={() =>
            act(async () => {
              const separator = query ? '&' : '?'
              const answer = await requestJson<{ removed: number }>(
                'DELETE',
                `${path}/memories${query}${separator}history=${withHistory}`,
              )
              showToast(translate('people.erased', { removed: answer?.removed ?? 0 }))
              props.onChanged()
            })
          }
        >
          {translate('people.erase')}
        </ConfirmButton>
      </div>
      {errorMessage ? <div class="field-error">{errorMessage}</div> : null}
      {memories ? (
        <ul class="memory-history">
          {memories.map((memory) => (
            <li data-memory-id={memory.id}>
              {formatTime(memory.time)} {memory.text}{' '}
              <button
                type="button"
                class="small danger"
                data-action="person-memory-delete"
                onClick={() =>
                  act(async () => {
                    await requestJson('DELETE', `${path}/memories/${encodeURIComponent(memory.id)}${query}`)
                    await loadMemories()
                    props.onChanged()
                  })
                }
              >
                {translate('memory.delete')}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  )
}

export function PeopleSection(props: { character?: string }) {
  const [people, setPeople] = useState<Person[]>([])
  const [revision, setRevision] = useState(0)
  const [errorMessage, setErrorMessage] = useState('')
  const query = props.character ? `?character=${encodeURIComponent(props.character)}` : ''
  useEffect(() => {
    void (async () => {
      try {
        const answer = await requestJson<{ people?: Person[] }>('GET', `/api/people${query}`)
        setPeople(answer?.people ?? [])
        setErrorMessage('')
      } catch (error) {
        setErrorMessage(error instanceof Error ? error.message : String(error))
      }
    })()
  }, [query, revision])
  return (
    <div class="people" data-section="people">
      <h3>{translate('people.title')}</h3>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {errorMessage}
        </div>
      ) : null}
      {people.length === 0 && !errorMessage ? <p>{translate('people.none')}</p> : null}
      <ul class="memory-list">
        {people.map((person) => (
          <PersonRow
            key={`${person.id}:${revision}`}
            person={person}
            query={query}
            onChanged={() => setRevision((value) => value + 1)}
          />
        ))}
      </ul>
    </div>
  )
}
