/**
 * Pasting the `mcpServers` JSON of an MCP server's documentation: remote servers are added through
 * `PUT /api/config`; servers that run a program come back as YAML for config.yaml, with the reason
 * (the admin API refuses them by design).
 */
import { useState } from 'preact/hooks'
import { showToast } from '../components/toast.js'
import { ApiError, requestJson } from '../lib/api-client.js'
import { type ConvertMcpServersJsonResult, convertMcpServersJson } from '../lib/convert-mcp-servers-json.js'
import { translate } from '../lib/i18n.js'
import type { ConfigObject } from '../lib/use-config-draft.js'

export interface McpImportFormProps {
  /** After remote servers were added: the config the server now runs. */
  onApplied(config: ConfigObject): void
}

export function McpImportForm(props: McpImportFormProps) {
  const [text, setText] = useState('')
  const [result, setResult] = useState<ConvertMcpServersJsonResult | undefined>()
  const [applyError, setApplyError] = useState('')
  const [busy, setBusy] = useState(false)

  const apply = async () => {
    const converted = convertMcpServersJson(text)
    setResult(converted)
    setApplyError('')
    const names = Object.keys(converted.remote)
    if (converted.errors.length > 0 || names.length === 0) return
    setBusy(true)
    try {
      const saved = await requestJson<ConfigObject>('PUT', '/api/config', {
        tools: { mcp_servers: converted.remote },
      })
      showToast(translate('mcpImport.applied', { names: names.join(', ') }))
      props.onApplied(saved)
    } catch (error) {
      setApplyError(error instanceof ApiError ? error.message : String(error))
    } finally {
      setBusy(false)
    }
  }

  const fileOnly = Object.keys(result?.fileOnly ?? {})
  return (
    <div class="mcp-import" data-section="mcp-import">
      <h4>{translate('mcpImport.title')}</h4>
      <p class="hint">{translate('mcpImport.hint')}</p>
      <textarea
        name="mcp-servers-json"
        rows={6}
        spellcheck={false}
        placeholder='{"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path"]}}}'
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button
        type="button"
        data-action="mcp-import"
        disabled={busy || !text.trim()}
        onClick={() => void apply()}
      >
        {translate('mcpImport.apply')}
      </button>
      {result?.errors.length ? (
        <div class="error-box" role="alert" data-mcp-import="errors">
          {result.errors.map((issue) => (
            <div>{translate(issue.key, issue.parameters)}</div>
          ))}
        </div>
      ) : null}
      {applyError ? (
        <div class="error-box" role="alert" data-mcp-import="refused">
          {translate('mcpImport.applyFailed', { message: applyError })}
        </div>
      ) : null}
      {result?.notes.length ? (
        <ul class="hint" data-mcp-import="notes">
          {result.notes.map((note) => (
            <li>{translate(note.key, note.parameters)}</li>
          ))}
        </ul>
      ) : null}
      {fileOnly.length > 0 ? (
        <div data-mcp-import="yaml">
          <p>{translate('mcpImport.stdioLead', { names: fileOnly.join(', ') })}</p>
          <pre class="preview-content">{result?.yaml}</pre>
        </div>
      ) : null}
    </div>
  )
}
