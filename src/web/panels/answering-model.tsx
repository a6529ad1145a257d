/**
 * Which provider and model answer in the chat, from the loaded (masked) config, so a newcomer sees
 * at once whether the mock or the configured model talks; on the defaults, where saves will go.
 */
import { lookupProvider } from '../../config/provider-registry.js'
import type { ConfigFileStatus } from '../lib/config-status.js'
import { translate } from '../lib/i18n.js'
import type { ConfigObject } from '../lib/use-config-draft.js'

export function AnsweringModel(props: {
  config: ConfigObject | undefined
  status: ConfigFileStatus | undefined
}) {
  const llm = props.config?.llm as { provider?: unknown; model?: unknown } | undefined
  if (!llm) return null
  const provider = String(llm.provider ?? '')
  const model = typeof llm.model === 'string' && llm.model !== '' ? llm.model : ''
  // No model set: the provider's own default answers, named when charpipe knows it.
  const defaultModel = model ? '' : lookupProvider(provider).defaultModel
  return (
    <div class="answering" data-answering>
      {translate('chat.answeredBy')}
      <strong data-provider>{provider}</strong>
      {' · '}
      {model ? (
        <code data-model>{model}</code>
      ) : defaultModel ? (
        <span data-model>
          <code>{defaultModel}</code> {translate('chat.providerDefault')}
        </span>
      ) : (
        <span data-model>{translate('chat.defaultModel')}</span>
      )}
      {props.status?.source === 'defaults' ? (
        <div class="hint" data-defaults>
          {translate('configFile.defaults', { path: props.status.path })}
        </div>
      ) : null}
    </div>
  )
}
