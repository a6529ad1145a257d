/** `charpipe/server`: the HTTP and WebSocket server of PROTOCOL.md. */
export { isTokenValid } from './check-token.js'
export type { ConfigManager, ConfigStatus } from './create-config-manager.js'
export {
  type CharpipeServer,
  type CreateServerOptions,
  createServer,
  type OwnedCharpipeOptions,
} from './create-server.js'
export { createServerMetrics, type ServerMetrics } from './create-server-metrics.js'
export { convertErrorToResponseBody, mapErrorCodeToStatus } from './error-response.js'
export { isLoopbackHost } from './is-loopback-host.js'
export { type StartServerOptions, type StartServerResult, startServer } from './start-server.js'
