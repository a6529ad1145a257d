/** Character settings: name, persona, reply format, emotions, aliases and the injected dialogue. */
import { ObjectListEditor } from '../components/object-list-editor.js'
import { SaveBar } from '../components/save-bar.js'
import { SchemaField } from '../components/schema-field.js'
import { checkInjectedDialogue, type InjectedMessage } from '../lib/check-injected-dialogue.js'
import { findIssuesFor } from '../lib/config-issues.js'
import { findSchemaNode, type JsonSchemaNode } from '../lib/json-schema-node.js'
import { type ConfigObject, useConfigDraft } from '../lib/use-config-draft.js'

export interface SettingsPanelProps {
  config: ConfigObject
  schema: JsonSchemaNode
  onSaved(config: ConfigObject): void
}

const plainFields = [
  'name',
  'user_name',
  'persona',
  'reply_format',
  'default_emotion',
  'emotions',
  'inline_emotion_tags',
  'emotion_aliases',
  'user_emotion_map',
]

export function CharacterPanel(props: SettingsPanelProps) {
  const draft = useConfigDraft({ config: props.config, sections: ['character'], onSaved: props.onSaved })
  const dialogue = (draft.get('character.injected_history') as InjectedMessage[] | undefined) ?? []
  const check = checkInjectedDialogue(dialogue)
  const dialogueNode = findSchemaNode(props.schema, 'character.injected_history')
  const dialogueErrors = findIssuesFor(draft.issues, 'character.injected_history')
  return (
    <section class="panel" data-panel="character">
      <h2>角色 Character</h2>
      <div class="form-grid">
        {plainFields.map((key) => (
          <SchemaField
            path={`character.${key}`}
            node={findSchemaNode(props.schema, `character.${key}`)}
            value={draft.get(`character.${key}`)}
            onChange={(value) => draft.set(`character.${key}`, value)}
            issues={draft.issues}
          />
        ))}
      </div>
      <h3>示范对话 Injected dialogue</h3>
      <p class="hint">{dialogueNode?.description}</p>
      {check.warnings.map((warning) => (
        <div class="warning" data-warning="injected_history">
          ⚠ {warning}
        </div>
      ))}
      {dialogueErrors.map((error) => (
        <div class="field-error" data-error-for="character.injected_history">
          {error}
        </div>
      ))}
      {dialogueNode?.items ? (
        <ObjectListEditor
          path="character.injected_history"
          itemNode={dialogueNode.items}
          value={dialogue as unknown as Record<string, unknown>[]}
          onChange={(value) => draft.set('character.injected_history', value)}
          issues={draft.issues}
          renderRowExtra={(index) =>
            check.rowWarnings.has(index) ? (
              <div class="warning row-warning">⚠ {check.rowWarnings.get(index)}</div>
            ) : null
          }
        />
      ) : null}
      <SaveBar draft={draft} />
    </section>
  )
}
