/**
 * Which session's audience queue the Audience tab shows: this page's own chat session, or one of the
 * sessions the connectors feed (a QQ group, a Twitch channel), each named with its connector and the
 * state of its link in that link's colour. A connector's session is read with the connector's
 * character, whose queue it is.
 */
import { translate } from '../lib/i18n.js'

export interface ConnectorSessions {
  name: string
  character?: string
  state: string
  sessions: string[]
}

export interface AudienceTarget {
  session: string
  /** The character whose queue it is; undefined: the page's chosen character. */
  character?: string
  /** The connector feeding the session, if any. */
  connector?: string
}

export function listAudienceTargets(pageSession: string, connectors: ConnectorSessions[]): AudienceTarget[] {
  const targets: AudienceTarget[] = [{ session: pageSession }]
  for (const connector of connectors)
    for (const session of connector.sessions)
      if (session !== pageSession)
        targets.push({ session, character: connector.character ?? '', connector: connector.name })
  return targets
}

export function AudienceSessionPicker(props: {
  pageSession: string
  connectors: ConnectorSessions[]
  chosen: string
  onChoose(target: AudienceTarget): void
}) {
  const targets = listAudienceTargets(props.pageSession, props.connectors)
  const stateOf = (name: string | undefined) => props.connectors.find((each) => each.name === name)?.state
  const chosenState = stateOf(targets.find((target) => target.session === props.chosen)?.connector)
  return (
    <label class="audience-session-picker">
      {translate('audience.session')}{' '}
      <select
        data-audience-session
        value={props.chosen}
        onChange={(event) => {
          const target = targets.find((each) => each.session === (event.target as HTMLSelectElement).value)
          if (target) props.onChoose(target)
        }}
      >
        {targets.map((target) => (
          <option value={target.session} data-connector-state={stateOf(target.connector)}>
            {target.connector
              ? translate('audience.connectorSession', {
                  session: target.session,
                  connector: target.connector,
                  state: stateOf(target.connector) ?? '',
                })
              : translate('audience.thisChat', { session: target.session })}
          </option>
        ))}
      </select>{' '}
      {chosenState ? (
        <span class="badge" data-connector-state={chosenState}>
          {chosenState}
        </span>
      ) : null}
    </label>
  )
}
