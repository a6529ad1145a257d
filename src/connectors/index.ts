/**
 * Connectors bring the character to where its audience already is: QQ groups through a OneBot v11
 * implementation (`onebot/`), Twitch chat (`twitch/`) and Bilibili live danmaku (`bilibili/`). A connector is one more producer of
 * audience messages and one more consumer of a session's turn events: it turns platform messages
 * into the `audience` input of the session's selector and the selector's replies back into platform
 * messages. It owns its link (reconnects, backoff, a bounded outbox) and nothing of the turn.
 * What every connector is around its wire code (state, counts, follows, masked and rate-limited
 * warnings, and the one guard nothing it receives can throw past) is `create-connector-shell.ts`.
 */
export type {
  AudienceMessageInput,
  AudienceRole,
  Connector,
  ConnectorClock,
  ConnectorHost,
  ConnectorStatus,
} from './connector-host.js'
export type { Backoff } from './keep-socket-connected.js'
export type { OnebotConnector, ReverseSocket } from './onebot/create-onebot-connector.js'
export { type ConnectorSet, type StartConnectorsOptions, startConnectors } from './start-connectors.js'
