/**
 * The connectors of a config, started together and replaced together when the `connectors`
 * section (or the name of a character they speak for) changes. One connector failing to connect
 * never touches the others or the server: each keeps its own link and reconnect timer. Every
 * connector is handed the host behind the admission (guard-connector-host.ts): its own sessions
 * only, its own `turns_per_minute`, and a refused message is a counted drop, never an exception.
 */
import { isDeepStrictEqual } from 'node:util'
import {
  type Admission,
  createAdmission,
  createRateLimitedLog,
  type GuardedHost,
  guardConnectorHost,
} from '../admission/index.js'
import type { CharpipeConfig } from '../config/schema.js'
import { findCharacter } from '../config/select-character-config.js'
import { type Language, resolveCharacterLanguage } from '../shared/language/index.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import { createBilibiliConnector } from './bilibili/create-bilibili-connector.js'
import type { Connector, ConnectorClock, ConnectorHost, ConnectorStatus } from './connector-host.js'
import type { Backoff } from './keep-socket-connected.js'
import { createOnebotConnector, type OnebotConnector } from './onebot/create-onebot-connector.js'
import { createTwitchConnector } from './twitch/create-twitch-connector.js'

export interface StartConnectorsOptions {
  config: CharpipeConfig
  host: ConnectorHost
  logger: Logger
  backoff?: Backoff
  /** The admission every connector's messages pass (the server's own, so its counts are one). */
  admission?: Admission
  /** The clock replies are paced by. @default the system clock */
  clock?: ConnectorClock
}

export interface ConnectorSet {
  list(): ConnectorStatus[]
  /** The OneBot connector whose reverse WebSocket listens on `path`. */
  findReverse(path: string): OnebotConnector | undefined
  /** Applies a new config: connectors restart only when what they depend on changed. */
  update(config: CharpipeConfig): Promise<void>
  close(): Promise<void>
}

export function startConnectors(options: StartConnectorsOptions): ConnectorSet {
  const logger = createChildLogger(options.logger, 'connectors')
  const admission = options.admission ?? createAdmission()
  const log = createRateLimitedLog({ logger })

  // Each connector gets its own guarded host: its name owns its sessions, its budget is its own.
  const hostOf = (
    kind: 'onebot' | 'twitch' | 'bilibili',
    index: number,
    connectorConfig: { name: string; turns_per_minute: number },
  ): GuardedHost =>
    guardConnectorHost({
      host: options.host,
      connector: { kind, name: connectorConfig.name, index },
      readTurnsPerMinute: () => connectorConfig.turns_per_minute,
      admission,
      log,
      // The budget's minute is the connector's clock (a test's manual one runs minutes in seconds).
      ...(options.clock ? { now: () => options.clock!.now() } : {}),
    })

  let running = build(options.config)
  let inputs = connectorInputs(options.config)

  function build(config: CharpipeConfig) {
    const onebot = config.connectors.onebot.map((connectorConfig, index) =>
      createOnebotConnector({
        config: connectorConfig,
        host: hostOf('onebot', index, connectorConfig),
        characterName: characterNameOf(config, connectorConfig.character),
        language: characterLanguageOf(config, connectorConfig.character),
        logger,
        backoff: options.backoff,
      }),
    )
    const twitch = config.connectors.twitch.map((connectorConfig, index) =>
      createTwitchConnector({
        config: connectorConfig,
        host: hostOf('twitch', index, connectorConfig),
        characterName: characterNameOf(config, connectorConfig.character),
        logger,
        backoff: options.backoff,
      }),
    )
    const bilibili = config.connectors.bilibili.map((connectorConfig, index) =>
      createBilibiliConnector({
        config: connectorConfig,
        host: hostOf('bilibili', index, connectorConfig),
        characterName: characterNameOf(config, connectorConfig.character),
        logger,
        backoff: options.backoff,
        clock: options.clock,
      }),
    )
    return { onebot, all: [...onebot, ...twitch, ...bilibili] as Connector[] }
  }

  return {
    list: () => running.all.map((connector) => connector.status()),
    findReverse: (path) =>
      running.onebot.find((connector) => connector.listenPath !== '' && connector.listenPath === path),
    async update(config) {
      const next = connectorInputs(config)
      if (isDeepStrictEqual(next, inputs)) return
      inputs = next
      const previous = running
      running = build(config)
      await Promise.all(previous.all.map((connector) => connector.close()))
    },
    async close() {
      await Promise.all(running.all.map((connector) => connector.close()))
      running = { onebot: [], all: [] }
    },
  }
}

function connectorInputs(config: CharpipeConfig) {
  const characters = [
    ...config.connectors.onebot,
    ...config.connectors.twitch,
    ...config.connectors.bilibili,
  ].map((connector) => [
    characterNameOf(config, connector.character),
    characterLanguageOf(config, connector.character),
  ])
  return { connectors: config.connectors, characters }
}

function characterLanguageOf(config: CharpipeConfig, character: string): Language {
  return resolveCharacterLanguage(findCharacter(config, character) ?? config.character)
}

function characterNameOf(config: CharpipeConfig, character: string): string {
  if (character === '') return config.character.name
  return config.characters[character]?.name ?? character
}
