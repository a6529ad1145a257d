/**
 * The banner for a config file made invalid by hand: the file, each field and its problem. Beside a
 * refused save it is one line (the save bar stays on screen, and the full banner is at the top).
 */
import { useConfigStatus } from '../lib/config-status.js'
import { describeIssue, translate } from '../lib/i18n.js'

export function ConfigFileBanner(props: { onSave?: boolean }) {
  const status = useConfigStatus()
  const fileError = status?.fileError
  if (!fileError) return null
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
