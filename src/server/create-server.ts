/**
 * The charpipe HTTP and WebSocket server as a Hono app: every endpoint of PROTOCOL.md, auth, body
 * limits, metrics, the config admin API with hot reload, and the web page. `startServer` puts it on
 * a port; tests and embedders may also use `app.request()` directly.
 */
import type { Server } from 'node:http'
import { createNodeWebSocket } from '@hono/node-ws'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { createAdmission } from '../admission/index.js'
import { type ConfigCheck, loadConfig } from '../characters/load-config.js'
import { type ConfigSync, startConfigSync } from '../cluster/start-config-sync.js'
import type { LookupAddresses } from '../config/find-forbidden-url-targets.js'
import type { CharpipeConfig } from '../config/schema.js'
import { type ConnectorClock, startConnectors } from '../connectors/index.js'
import { checkPipelineConfig } from '../context/index.js'
import type { Charpipe, RegisterGauge, TurnObserver } from '../engine/types.js'
import type { ConfigIssue } from '../shared/errors.js'
import { createChildLogger, getLogger, type Logger } from '../shared/logger.js'
import { createRouteAdmit, provideAdmission, readRequestCaller } from './admit-request.js'
import { createAudienceOrigins } from './create-audience-origins.js'
import { createClientUsage } from './create-client-usage.js'
import { type ConfigManager, createConfigManager } from './create-config-manager.js'
import { createReaderLedger } from './create-reader-ledger.js'
import { createServerMetrics, type ServerMetrics } from './create-server-metrics.js'
import { createSessionOwners } from './create-session-owners.js'
import { createTurnLimiter } from './create-turn-limiter.js'
import { defineErrorEvent } from './define-error-event.js'
import { respondBadRequest, respondWithError } from './error-response.js'
import { limitHttpTurns } from './limit-http-turns.js'
import { limitSessionRequests } from './limit-session-requests.js'
import { completeOpenAIErrorBody } from './openai/complete-openai-error-body.js'
import { registerStateMetrics } from './register-state-metrics.js'
import { requestClientKey, requireAccess } from './require-access.js'
import { registerAdminRoutes } from './routes/admin-routes.js'
import { registerAudienceRoutes } from './routes/audience-routes.js'
import { registerCharacterRoutes } from './routes/character-routes.js'
import { registerChatRoute } from './routes/chat-route.js'
import { registerClientRoutes } from './routes/client-routes.js'
import { registerConnectorRoutes } from './routes/connector-routes.js'
import { registerDoctorRoute } from './routes/doctor-route.js'
import { registerHealthRoutes } from './routes/health-routes.js'
import { registerMemoryRoutes } from './routes/memory-routes.js'
import { registerOpenAICompletionsRoute } from './routes/openai-completions-route.js'
import { registerOpenAIModelsRoute } from './routes/openai-models-route.js'
import { registerOpenAIResponsesRoute } from './routes/openai-responses-route.js'
import { registerPeopleRoutes } from './routes/people-routes.js'
import { registerSayRoutes } from './routes/say-routes.js'
import { createWebSocketEvents } from './routes/websocket-route.js'
import { mountSecurity } from './security/index.js'
import { createStaticFileHandler, findDefaultStaticDir } from './serve-static-files.js'
import type { ServerDependencies } from './server-dependencies.js'

export interface CreateServerOptions {
  /** A ready product to serve; the caller keeps ownership (`close()` does not close it). */
  charpipe?: Charpipe
  /**
   * Or a factory: called once with the config and what the server's metrics observe the product
   * with, to be passed on as `createCharpipe(config, { ...options })`; the server closes what it made.
   */
  createCharpipe?: (config: CharpipeConfig, options: OwnedCharpipeOptions) => Promise<Charpipe>
  /**
   * The metrics `/metrics` shows (`createServerMetrics()`). With a ready `charpipe`, pass the ones
   * whose `observeTurn` and `registerGauge` it was created with: both are given at creation, so
   * without them the product's turns feed no errors, times or tokens, and its own gauges are not
   * shown. @default new metrics
   */
  metrics?: ServerMetrics
  /** The config file `PUT /api/config` writes and the watch follows. */
  configPath: string
  /** The running config; read from `configPath` when not given. */
  config?: CharpipeConfig
  /** The warnings `config` was parsed with, shown by `GET /api/config/status`. */
  configWarnings?: ConfigIssue[]
  logger?: Logger
  /** Folder of the built web page. @default the package's `dist/web` */
  staticDir?: string
  /** Follow hand edits of the config file. @default true */
  watchConfig?: boolean
  /** Resolves host names when an API change sets an outbound address. @default the system resolver */
  lookup?: LookupAddresses
  /** Extra config checks run on every change. @default the pipeline's processor settings check */
  configChecks?: ConfigCheck[]
  /** The host the server listens on (allowed as a `Host` header). @default config server.host */
  host?: string
  /** The clock connectors pace their replies by (a test's manual clock). @default the system clock */
  connectorClock?: ConnectorClock
  /**
   * The clock the minutes of HTTP audience origins' turns and requests are counted by (a test's
   * manual clock). @default the system clock
   */
  limitsClock?: { now(): number }
}

/** What the server hands its `createCharpipe` factory: how its metrics observe the product. */
export interface OwnedCharpipeOptions {
  /** The server's turn observers: its per-turn metrics. */
  observers: readonly TurnObserver[]
  /** Takes the engine's gauges into `/metrics`. */
  registerGauge: RegisterGauge
}

export interface CharpipeServer {
  app: Hono
  charpipe: Charpipe
  configManager: ConfigManager
  metrics: ServerMetrics
  /** Connects the WebSocket upgrade handling to a Node HTTP server. */
  injectWebSocket(server: Server): void
  /** Interrupts running turns, closes sockets and the watch, and closes the product if the server made it. */
  close(): Promise<void>
}

export async function createServer(options: CreateServerOptions): Promise<CharpipeServer> {
  const logger = options.logger ?? getLogger('server')
  const loaded = options.config
    ? { config: options.config, warnings: options.configWarnings ?? [] }
    : await loadConfig(options.configPath, { logger })
  const { config } = loaded
  const ownsCharpipe = !options.charpipe
  // Made first: the product takes the metrics' turn observer and gauge registration at its creation.
  const metrics = options.metrics ?? createServerMetrics()
  const charpipe =
    options.charpipe ??
    (await createOwnedCharpipe(options, config, {
      observers: [metrics.observeTurn],
      registerGauge: metrics.registerGauge,
    }).catch((error) => {
      if (!options.metrics) metrics.close()
      throw error
    }))
  // Connectors follow the running config: a change of the file (or of a character's name) restarts them.
  // One admission for every door: the connectors', the routes' and the WebSocket's counts are one.
  const admission = createAdmission()
  const connectors = startConnectors({
    config,
    host: charpipe,
    logger,
    admission,
    clock: options.connectorClock,
  })
  const configManager = createConfigManager({
    configPath: options.configPath,
    config,
    warnings: loaded.warnings,
    apply: async (next) => {
      await charpipe.reload(next)
      await connectors.update(next)
    },
    checks: options.configChecks ?? [checkPipelineConfig],
    logger,
    lookup: options.lookup,
    onChange: async (next) => {
      await configSync?.publish(next)
    },
  })
  const configSync = await startClusterConfigSync(charpipe, config, configManager, logger)
  registerStateMetrics(metrics.registry, { charpipe, admission })
  const sessionOwners = createSessionOwners()
  const readConfig = () => configManager.current()
  const httpTurns = limitHttpTurns({
    limiter: createTurnLimiter({ readLimits: () => readConfig().server.limits }),
    addressLimiter: createTurnLimiter({
      readLimits: () => {
        const { turns_per_minute, concurrent_turns } = readConfig().server.limits
        return { turns_per_minute: turns_per_minute * 10, concurrent_turns: concurrent_turns * 10 }
      },
    }),
    readTrustedProxies: () => readConfig().server.trusted_proxies,
  })
  // Audience turns start later, by the server: each counts against the origin whose lines it answers.
  const audienceOrigins = createAudienceOrigins({
    readLimits: () => readConfig().server.limits,
    ...(options.limitsClock ? { now: () => options.limitsClock!.now() } : {}),
  })
  // The routes that store lines or open a session by name share one request bound per origin.
  const sessionRequests = limitSessionRequests({
    origins: audienceOrigins,
    readTrustedProxies: () => readConfig().server.trusted_proxies,
  })
  // Each door's budget goes with the door a route declares (`admit`), so the limits need no paths:
  // every OpenAI-compatible turn (chat completions, responses, and those to come) under one limit.
  const admit = createRouteAdmit({
    budgets: {
      http_chat: httpTurns,
      v1: httpTurns,
      http_audience: sessionRequests,
      http_observe: sessionRequests,
      http_open: sessionRequests,
      // A say or an event speaks in the session: one of the caller's turns, as a chat input is.
      http_say: httpTurns,
      http_event: httpTurns,
    },
  })
  // One ledger for every slow reader of this server, WebSocket and streamed HTTP alike.
  const readerLedger = createReaderLedger({
    readMaxTotalBytes: () => readConfig().server.limits.buffered_bytes_total,
  })
  const dependencies: ServerDependencies = {
    charpipe,
    configManager,
    metrics,
    logger,
    sessionOwners,
    admission,
    admit,
    readerLedger,
    lookup: options.lookup,
  }

  const app = new Hono()
  // First: no route runs for a foreign Host, a foreign page or a form-encoded body.
  mountSecurity(app, {
    readServer: () => readConfig().server,
    boundHost: options.host,
    // A character card may come as the PNG that carries it.
    extraTypes: { '/api/characters/import': ['image/png'] },
  })
  defineErrorEvent()
  const nodeWebSocket = createNodeWebSocket({ app })
  const sockets = new Set<() => void>()

  app.onError((error, context) => {
    logger.error({ err: error, path: context.req.path }, 'request failed')
    return respondWithError(context, error)
  })

  let closing = false
  registerHealthRoutes(app, {
    charpipe,
    logger,
    isClosing: () => closing,
    ...(configSync ? { readConfigDisagreement: () => configSync.disagreement() } : {}),
  })

  const readTokens = () => ({
    token: readConfig().server.token,
    adminToken: readConfig().server.admin_token,
    clients: readConfig().server.clients,
  })
  app.use('*', provideAdmission(admission))
  const clientUsage = createClientUsage()
  const onClientAdmitted = (client: { name: string }) => clientUsage.record(client.name)
  const auth = requireAccess({ readTokens, onClientAdmitted })
  // Open Responses clients read only OpenAI's error object, whichever part of the server refuses.
  app.use('/v1/responses', completeOpenAIErrorBody)
  app.use('/v1/responses/*', completeOpenAIErrorBody)
  for (const path of ['/api/*', '/v1/*', '/metrics']) app.use(path, auth)
  app.use('/ws', requireAccess({ readTokens, acceptQueryToken: true, onClientAdmitted }))

  const limitBody = async (
    context: Parameters<Parameters<typeof app.use>[1]>[0],
    next: () => Promise<void>,
  ) => {
    const maxSize = readConfig().server.max_body_bytes
    return bodyLimit({
      maxSize,
      onError: (limited) =>
        respondBadRequest(limited, `the body is larger than server.max_body_bytes (${maxSize} bytes)`, 413),
    })(context, next)
  }
  app.use('/api/*', limitBody)
  app.use('/v1/*', limitBody)

  registerChatRoute(app, dependencies)
  registerAudienceRoutes(app, { ...dependencies, audienceOrigins })
  registerSayRoutes(app, dependencies)
  registerOpenAICompletionsRoute(app, dependencies)
  registerOpenAIResponsesRoute(app, dependencies)
  registerOpenAIModelsRoute(app, dependencies)
  registerAdminRoutes(app, dependencies)
  registerClientRoutes(app, { ...dependencies, clientUsage })
  registerCharacterRoutes(app, dependencies)
  registerDoctorRoute(app, dependencies)
  registerMemoryRoutes(app, dependencies)
  registerPeopleRoutes(app, dependencies)
  registerConnectorRoutes(app, {
    connectors,
    admit,
    upgradeWebSocket: nodeWebSocket.upgradeWebSocket,
    setMaxPayload: (bytes) => {
      nodeWebSocket.wss.options.maxPayload = bytes
    },
    logger,
  })

  app.get(
    '/ws',
    admit('chat'),
    async (_context, next) => {
      // Frames a little over the limit get a clear error frame; far over it, ws closes the socket (1009).
      nodeWebSocket.wss.options.maxPayload = readConfig().server.max_body_bytes * 2 + 1024
      await next()
    },
    nodeWebSocket.upgradeWebSocket((context) =>
      createWebSocketEvents({
        charpipe,
        metrics,
        logger,
        admin: context.get('adminTokenUsed') === true,
        admission,
        caller: readRequestCaller(context),
        clientKey: requestClientKey(context),
        sessionOwners,
        readLimits: () => readConfig().server.limits,
        readMaxFrameBytes: () => readConfig().server.max_body_bytes,
        readMaxBufferedBytes: () => readConfig().server.ws_max_buffered_bytes,
        ledger: readerLedger,
        track: (close) => {
          sockets.add(close)
          return () => sockets.delete(close)
        },
      }),
    ),
  )

  app.get('/metrics', admit('admin'), async (context) =>
    context.body(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }),
  )

  app.all('/api/*', admit('admin'), (context) =>
    context.json(
      { error: { code: 'not_found', message: `no endpoint ${context.req.method} ${context.req.path}` } },
      404,
    ),
  )
  app.all('/v1/*', admit('chat'), (context) =>
    context.json(
      { error: { code: 'not_found', message: `no endpoint ${context.req.method} ${context.req.path}` } },
      404,
    ),
  )
  app.get('*', createStaticFileHandler(options.staticDir ?? findDefaultStaticDir()))

  if (options.watchConfig !== false) configManager.watchFile()

  return {
    app,
    charpipe,
    configManager,
    metrics,
    injectWebSocket: (server) => nodeWebSocket.injectWebSocket(server),
    async close() {
      closing = true
      metrics.close()
      configManager.close()
      configSync?.close()
      await connectors.close()
      if (ownsCharpipe) await charpipe.close()
      else
        await Promise.all(
          charpipe.sessions.active().map((session) => charpipe.interrupt(session, { clearQueue: true })),
        )
      for (const close of sockets) close()
      sockets.clear()
    },
  }
}

async function createOwnedCharpipe(
  options: CreateServerOptions,
  config: CharpipeConfig,
  owned: OwnedCharpipeOptions,
): Promise<Charpipe> {
  if (!options.createCharpipe)
    throw new TypeError('createServer needs a `charpipe` or a `createCharpipe` factory')
  return options.createCharpipe(config, owned)
}

/**
 * The cluster shares admin config changes only with `cluster.shared_secret` set (each version is
 * signed and encrypted with it); without it every server runs its own file, and says so once.
 */
async function startClusterConfigSync(
  charpipe: Charpipe,
  config: CharpipeConfig,
  configManager: ConfigManager,
  logger: Logger,
): Promise<ConfigSync | undefined> {
  if (!charpipe.cluster) return undefined
  const clusterLogger = createChildLogger(logger, 'cluster')
  if (config.cluster.shared_secret === '') {
    clusterLogger.warn(
      'cluster.shared_secret is not set: admin config changes stay on the server that made them, and no config is taken from Redis',
    )
    return undefined
  }
  return startConfigSync({
    redis: charpipe.cluster.redis,
    initial: config,
    sharedSecret: config.cluster.shared_secret,
    adopt: (next) => configManager.adopt(next),
    logger: clusterLogger,
  })
}
