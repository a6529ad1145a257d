/** The banner for a config file made invalid by hand: the file, each field and its problem. */
import { useConfigStatus } from '../lib/config-status.js'
import { describeIssue, translate } from '../lib/i18n.js'

export function ConfigFileBanner(props: { onSave?: boolean }) {
  const status = useConfigStatus()
  const fileError = status?.fileError
  if (!fileError) return null
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
      {props.onSave ? <div>{translate('configFile.saveBlocked')}</div> : null}
    </div>
  )
}
