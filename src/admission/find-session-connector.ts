/**
 * Which connector a session belongs to, read from its id: `onebot:<name>:…`, `twitch:<name>:…`,
 * `bilibili:<name>:…` (PROTOCOL.md "Additions (fourth wave)"). Such a session is its connector's;
 * only the connector itself and the admin token may speak in it.
 */

const connectorKinds = ['onebot', 'twitch', 'bilibili'] as const

export type ConnectorKind = (typeof connectorKinds)[number]

export interface SessionConnector {
  kind: ConnectorKind
  name: string
}

const connectorSession = /^(onebot|twitch|bilibili):([^:]*)(?::|$)/

export function findSessionConnector(session: string): SessionConnector | undefined {
  const match = connectorSession.exec(session)
  if (!match) return undefined
  return { kind: match[1] as ConnectorKind, name: match[2]! }
}
