/**
 * Why a save was refused: each issue the server named, with a lead in the page's language. With
 * issues, the server's summary message would only repeat them, so it shows only when there are none.
 */
import type { ConfigIssue } from '../lib/config-issues.js'
import { describeIssue, translate } from '../lib/i18n.js'

export function SaveErrorList(props: { message: string; issues: ConfigIssue[] }) {
  return (
    <div class="save-error" role="alert" data-save-error>
      {props.issues.length > 0 ? (
        <ul>
          {props.issues.map((issue) => (
            <li data-issue-path={issue.path}>{describeIssue(issue)}</li>
          ))}
        </ul>
      ) : (
        <div>{translate('save.failed', { message: props.message })}</div>
      )}
    </div>
  )
}
