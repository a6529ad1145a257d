/**
 * Managing the characters from the character panel: create one by id, duplicate or delete the one
 * shown, import cards (drop a `.png` / `.json` here, or pick files) and export the one shown as a
 * V3 card. Each change is a call to `/api/characters`; the page then reloads the config.
 */
import { useState } from 'preact/hooks'
import { ConfirmButton } from '../components/confirm-button.js'
import { showToast } from '../components/toast.js'
import { requestJson } from '../lib/api-client.js'
import { translate } from '../lib/i18n.js'
import type { PageCharacter } from '../lib/list-page-characters.js'
import { exportCharacterCardFile, importCharacterCardFile } from '../lib/transfer-character-card.js'
import type { ConfigObject } from '../lib/use-config-draft.js'

export interface CharacterListBarProps {
  characters: PageCharacter[]
  selected: PageCharacter
  config: ConfigObject
  /** After a change: reload the config and show `id` (a new or remaining character). */
  onChanged(id: string): Promise<void>
}

const characterPath = (id: string) => `/api/characters/${encodeURIComponent(id)}`

function freeId(characters: PageCharacter[], wanted: string): string {
  const taken = new Set(characters.map((character) => character.id))
  let id = wanted
  for (let index = 2; taken.has(id); index++) id = `${wanted}-${index}`
  return id
}

export function CharacterListBar(props: CharacterListBarProps) {
  const [newId, setNewId] = useState('')
  const [error, setError] = useState('')
  const [dragging, setDragging] = useState(false)

  const run = async (action: () => Promise<string | undefined>) => {
    setError('')
    try {
      const id = await action()
      if (id !== undefined) await props.onChanged(id)
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure))
    }
  }

  const create = () =>
    run(async () => {
      const id = newId.trim()
      if (!id) return undefined
      await requestJson('PUT', characterPath(id), { name: id })
      setNewId('')
      showToast(translate('characters.created', { id }))
      return id
    })

  const duplicate = () =>
    run(async () => {
      const source = props.selected
      const block = structuredClone(
        (source.isDefault ? props.config.character : (props.config.characters as ConfigObject)[source.id]) ??
          {},
      ) as ConfigObject
      // The copy is kept under its own key: a pinned id would be the original's.
      delete block.id
      const id = freeId(props.characters, `${source.id}-copy`)
      await requestJson('PUT', characterPath(id), block)
      showToast(translate('characters.created', { id }))
      return id
    })

  const remove = () =>
    run(async () => {
      await requestJson('DELETE', characterPath(props.selected.id))
      showToast(translate('characters.deleted', { id: props.selected.id }))
      return props.characters[0]?.id ?? ''
    })

  const importFiles = (files: FileList | null | undefined) =>
    run(async () => {
      let last: string | undefined
      for (const file of Array.from(files ?? [])) {
        last = await importCharacterCardFile(file)
        showToast(translate('characters.imported', { id: last }))
      }
      return last
    })

  const exportCard = (format: 'json' | 'png') =>
    run(async () => {
      await exportCharacterCardFile(props.selected.id, format)
      return undefined
    })

  return (
    <section
      class={dragging ? 'character-bar dragging' : 'character-bar'}
      data-character-bar
      aria-label={translate('characters.dropHint')}
      onDragOver={(event) => {
        event.preventDefault()
        setDragging(true)
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault()
        setDragging(false)
        void importFiles(event.dataTransfer?.files)
      }}
    >
      <div class="row">
        <input
          type="text"
          data-new-character
          placeholder={translate('characters.newIdPlaceholder')}
          value={newId}
          onInput={(event) => setNewId(event.currentTarget.value)}
        />
        <button type="button" class="small" data-action="character-create" onClick={() => void create()}>
          {translate('characters.create')}
        </button>
        <button
          type="button"
          class="small"
          data-action="character-duplicate"
          onClick={() => void duplicate()}
        >
          {translate('characters.duplicate')}
        </button>
        {props.selected.isDefault ? null : (
          <ConfirmButton
            action="character-delete"
            question={translate('characters.deleteConfirm', { id: props.selected.id })}
            confirmLabel={translate('characters.delete')}
            onConfirm={() => void remove()}
          >
            {translate('characters.delete')}
          </ConfirmButton>
        )}
      </div>
      <div class="row">
        <label class="file-pick">
          {translate('characters.import')}
          <input
            type="file"
            data-character-import
            accept=".png,.json,image/png,application/json"
            multiple
            onChange={(event) => {
              void importFiles(event.currentTarget.files)
              event.currentTarget.value = ''
            }}
          />
        </label>
        <span class="hint">{translate('characters.dropHint')}</span>
        <button
          type="button"
          class="small"
          data-action="character-export-json"
          onClick={() => void exportCard('json')}
        >
          {translate('characters.exportJson')}
        </button>
        <button
          type="button"
          class="small"
          data-action="character-export-png"
          onClick={() => void exportCard('png')}
        >
          {translate('characters.exportPng')}
        </button>
      </div>
      {error ? (
        <div class="field-error" role="alert" data-character-error>
          {error}
        </div>
      ) : null}
    </section>
  )
}
