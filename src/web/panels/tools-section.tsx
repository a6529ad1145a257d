/**
 * The tools the character may call and where they come from: each MCP server of
 * `tools.mcp_servers` with its state (`connecting`, `ready`, `failed` and why), then every tool, and
 * a form that takes the `mcpServers` JSON of an MCP server's documentation.
 */
import { translate } from '../lib/i18n.js'
import type { ConfigObject } from '../lib/use-config-draft.js'
import { useLoadedJson } from '../lib/use-loaded-json.js'
import { McpImportForm } from './mcp-import-form.js'

interface ToolListing {
  tools: { name: string; description: string; server?: string }[]
  servers: { name: string; state: string; error?: string }[]
}

export function ToolsSection(props: { onSaved(config: ConfigObject): void }) {
  const {
    value: listing,
    errorMessage,
    refresh,
  } = useLoadedJson<ToolListing>('/api/tools', (answer) => ({
    tools: answer?.tools ?? [],
    servers: answer?.servers ?? [],
  }))
  return (
    <div class="tools-section" data-section="tools">
      <h3>{translate('tools.title')}</h3>
      <p class="hint">{translate('tools.hint')}</p>
      {errorMessage ? (
        <div class="error-box" role="alert">
          {translate('tools.loadFailed', { message: errorMessage })}
        </div>
      ) : null}
      <ul class="kb-list">
        {listing.servers.map((server) => (
          <li data-mcp-server={server.name}>
            <strong>{server.name}</strong> <span class="badge">{server.state}</span>
            {server.error ? <span> {server.error}</span> : null}
          </li>
        ))}
      </ul>
      {listing.tools.length === 0 ? <p class="hint">{translate('tools.none')}</p> : null}
      <ul class="kb-list">
        {listing.tools.map((tool) => (
          <li data-tool={tool.name}>
            <strong>{tool.name}</strong> {tool.server ? <span class="badge">{tool.server}</span> : null}{' '}
            <span>{tool.description}</span>
          </li>
        ))}
      </ul>
      <button type="button" data-action="tools-refresh" onClick={() => void refresh()}>
        {translate('tools.refresh')}
      </button>
      <McpImportForm
        onApplied={(config) => {
          props.onSaved(config)
          void refresh()
        }}
      />
    </div>
  )
}
