/**
 * The banner for a config file made invalid by hand: the file, each field and its problem. Beside a
 * refused save it is one line (the save bar stays on screen, and the full banner is at the top).
 * While the file is fine, the warnings the running config was accepted with, folded.
 */
import type { ConfigIssue } from '../lib/config-issues.js'
import { useConfigStatus } from '../lib/config-status.js'
import { describeIssue, translate } from '../lib/i18n.js'

export function ConfigFileBanner(props: { onSave?: boolean }) {
  const status = useConfigStatus()
  const fileError = status?.fileError
  if (!fileError) return props.onSave ? null : <ConfigWarnings warnings={status?.warnings ?? []} />
  if (props.onSave) {
    const fields = fileError.issues.map((issue) => issue.path).join(', ') || fileError.message
    return (
      <div class="save-error" role="alert" data-config-file-error>
        {translate('configFile.saveBlocked', { path: status.path, fields })}
      </div>
    )
  }
  return (
    <div class="error-box config-file-banner" role="alert" data-config-file-error>
      <div>{translate('configFile.invalid', { path: status.path })}</div>
      <ul>
        {fileError.issues.length > 0 ? (
          fileError.issues.map((issue) => <li>{describeIssue(issue)}</li>)
        ) : (
          <li>{fileError.message}</li>
        )}
      </ul>
    </div>
  )
}

/** What the running config was accepted with but not as written: a skipped card, an unset `${VAR}`. */
function ConfigWarnings(props: { warnings: ConfigIssue[] }) {
  if (props.warnings.length === 0) return null
  return (
    <details class="warning config-warnings" data-config-warnings>
      <summary>{translate('configFile.warnings', { count: String(props.warnings.length) })}</summary>
      <ul>
        {props.warnings.map((issue) => (
          <li>{describeIssue(issue)}</li>
        ))}
      </ul>
    </details>
  )
}
