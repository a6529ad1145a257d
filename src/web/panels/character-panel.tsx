/**
 * Character settings of the character chosen in the header: name, persona, scenario, greetings,
 * avatar, reply format, emotions, aliases and the injected dialogue; above them the bar that
 * creates, duplicates, deletes, imports and exports characters. The default character is edited at
 * `character`, the others at `characters.<id>`; the labels are the same.
 */
import { ObjectListEditor } from '../components/object-list-editor.js'
import { SaveBar } from '../components/save-bar.js'
import { SchemaField } from '../components/schema-field.js'
import { checkInjectedDialogue, type InjectedMessage } from '../lib/check-injected-dialogue.js'
import { findIssuesFor } from '../lib/config-issues.js'
import { describeField, translate } from '../lib/i18n.js'
import { findSchemaNode, type JsonSchemaNode } from '../lib/json-schema-node.js'
import type { PageCharacter } from '../lib/list-page-characters.js'
import { characterFields } from '../lib/panel-fields.js'
import { type ConfigObject, useConfigDraft } from '../lib/use-config-draft.js'
import { CharacterListBar } from './character-list-bar.js'
import { CharacterAvatar } from './character-switch.js'

export interface SettingsPanelProps {
  config: ConfigObject
  schema: JsonSchemaNode
  onSaved(config: ConfigObject): void
}

export interface CharacterPanelProps extends SettingsPanelProps {
  characters: PageCharacter[]
  selected: PageCharacter
  onCharactersChanged(id: string): Promise<void>
}

export function CharacterPanel(props: CharacterPanelProps) {
  const draft = useConfigDraft({
    config: props.config,
    sections: ['character', 'characters'],
    onSaved: props.onSaved,
  })
  const base = props.selected.path
  const dialoguePath = `${base}.injected_history`
  const dialogue = (draft.get(dialoguePath) as InjectedMessage[] | undefined) ?? []
  const check = checkInjectedDialogue(dialogue)
  const dialogueNode = findSchemaNode(props.schema, 'character.injected_history')
  const dialogueErrors = findIssuesFor(draft.issues, dialoguePath)
  return (
    <section class="panel" data-panel="character" data-character={props.selected.id}>
      <h2>
        <CharacterAvatar character={props.selected} /> {translate('character.title')}:{' '}
        <span data-character-title>{props.selected.id}</span>
      </h2>
      <CharacterListBar
        characters={props.characters}
        selected={props.selected}
        config={props.config}
        onChanged={props.onCharactersChanged}
      />
      <div class="form-grid">
        {characterFields.map((key) => (
          <SchemaField
            path={`${base}.${key}`}
            textPath={`character.${key}`}
            node={findSchemaNode(props.schema, `character.${key}`)}
            value={draft.get(`${base}.${key}`)}
            onChange={(value) => draft.set(`${base}.${key}`, value)}
            issues={draft.issues}
          />
        ))}
      </div>
      <h3>{translate('character.dialogue')}</h3>
      <p class="hint">
        {describeField({ path: 'character.injected_history', description: dialogueNode?.description }).hint}
      </p>
      {check.warnings.map((warning) => (
        <div class="warning" data-warning="injected_history">
          ⚠ {translate(warning.key, warning.parameters)}
        </div>
      ))}
      {dialogueErrors.map((error) => (
        <div class="field-error" data-error-for={dialoguePath}>
          {translate('issue.fieldLead', { message: error })}
        </div>
      ))}
      {dialogueNode?.items ? (
        <ObjectListEditor
          path={dialoguePath}
          itemNode={dialogueNode.items}
          value={dialogue as unknown as Record<string, unknown>[]}
          onChange={(value) => draft.set(dialoguePath, value)}
          issues={draft.issues}
          renderRowExtra={(index) => {
            const warning = check.rowWarnings.get(index)
            return warning ? (
              <div class="warning row-warning">⚠ {translate(warning.key, warning.parameters)}</div>
            ) : null
          }}
        />
      ) : null}
      <SaveBar draft={draft} />
    </section>
  )
}
