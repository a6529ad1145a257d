/** Character settings: name, persona, reply format, emotions, aliases and the injected dialogue. */
import { ObjectListEditor } from '../components/object-list-editor.js'
import { SaveBar } from '../components/save-bar.js'
import { SchemaField } from '../components/schema-field.js'
import { checkInjectedDialogue, type InjectedMessage } from '../lib/check-injected-dialogue.js'
import { findIssuesFor } from '../lib/config-issues.js'
import { describeField, translate } from '../lib/i18n.js'
import { findSchemaNode, type JsonSchemaNode } from '../lib/json-schema-node.js'
import { characterFields } from '../lib/panel-fields.js'
import { type ConfigObject, useConfigDraft } from '../lib/use-config-draft.js'

export interface SettingsPanelProps {
  config: ConfigObject
  schema: JsonSchemaNode
  onSaved(config: ConfigObject): void
}

export function CharacterPanel(props: SettingsPanelProps) {
  const draft = useConfigDraft({ config: props.config, sections: ['character'], onSaved: props.onSaved })
  const dialogue = (draft.get('character.injected_history') as InjectedMessage[] | undefined) ?? []
  const check = checkInjectedDialogue(dialogue)
  const dialogueNode = findSchemaNode(props.schema, 'character.injected_history')
  const dialogueErrors = findIssuesFor(draft.issues, 'character.injected_history')
  return (
    <section class="panel" data-panel="character">
      <h2>{translate('character.title')}</h2>
      <div class="form-grid">
        {characterFields.map((key) => (
          <SchemaField
            path={`character.${key}`}
            node={findSchemaNode(props.schema, `character.${key}`)}
            value={draft.get(`character.${key}`)}
            onChange={(value) => draft.set(`character.${key}`, value)}
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
        <div class="field-error" data-error-for="character.injected_history">
          {translate('issue.fieldLead', { message: error })}
        </div>
      ))}
      {dialogueNode?.items ? (
        <ObjectListEditor
          path="character.injected_history"
          itemNode={dialogueNode.items}
          value={dialogue as unknown as Record<string, unknown>[]}
          onChange={(value) => draft.set('character.injected_history', value)}
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
