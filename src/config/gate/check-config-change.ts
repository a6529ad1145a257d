/**
 * The one check every config change from outside the file passes, by where it came from: the
 * file-only rules, the outbound address rules and the secret-to-host binding for the admin API, a
 * card and the cluster alike; for the cluster also the fields each server keeps for itself.
 */
import { isDeepStrictEqual } from 'node:util'
import type { ConfigIssue } from '../../shared/errors.js'
import { isSecretKey, MASK } from '../../shared/redact.js'
import { bindSecretsToHosts } from '../bind-secrets-to-hosts.js'
import { findFileOnlyChanges } from '../find-file-only-changes.js'
import { findForbiddenUrlTargets, type LookupAddresses } from '../find-forbidden-url-targets.js'
import type { CharpipeConfig } from '../schema.js'
import { findNodeLocalFields } from './split-node-local-fields.js'

/**
 * Where a change came from: the config file (trusted: it is the operator's), the admin API, a
 * character card (over HTTP or `charpipe card import`), or another server of the cluster.
 */
export type ConfigSource = 'file' | 'admin' | 'card' | 'cluster'

export interface CheckConfigChangeOptions {
  source: ConfigSource
  /** The config the change makes (parsed and validated). */
  candidate: CharpipeConfig
  /** The config running now. */
  running: CharpipeConfig
  /**
   * What the config file would hold after the change and holds now, when the change is written
   * there (admin, card): file-only fields are compared in the file's own terms. @default candidate and running
   */
  file?: { candidate: unknown; running: unknown }
  /**
   * The change as it was sent, a kept secret as `***` or left out (the admin API), and what those
   * refer to. @default the candidate with each secret equal to the running one taken as kept
   */
  secrets?: { incoming: unknown; stored: unknown }
  /** For the cluster: the version as it came, before this server's own fields were put back. */
  shared?: unknown
  lookup?: LookupAddresses
}

/** Every issue that refuses the change; empty when it may apply. The file is never refused. */
export async function checkConfigChange(options: CheckConfigChangeOptions): Promise<ConfigIssue[]> {
  if (options.source === 'file') return []
  const { candidate, running } = options
  const issues: ConfigIssue[] = []
  if (options.shared !== undefined) issues.push(...findNodeLocalFields(options.shared))
  issues.push(
    ...findFileOnlyChanges({
      candidate: options.file?.candidate ?? candidate,
      running: options.file?.running ?? running,
    }),
  )
  const secrets = options.secrets ?? { incoming: maskKeptSecrets(candidate, running), stored: running }
  issues.push(...bindSecretsToHosts(secrets.incoming, secrets.stored))
  issues.push(...(await findForbiddenUrlTargets({ candidate, running, lookup: options.lookup })))
  return dedupe(issues)
}

/**
 * `candidate` with each secret equal to the running one at the same place replaced by `***`, so
 * the binding rule sees a kept secret as kept (a full config from the cluster carries them all).
 */
function maskKeptSecrets(candidate: unknown, running: unknown, secret = false): unknown {
  if (typeof candidate === 'string')
    return secret && candidate !== '' && candidate === running ? MASK : candidate
  if (candidate === null || typeof candidate !== 'object') return candidate
  const holder = (running ?? {}) as Record<string, unknown>
  if (Array.isArray(candidate))
    return candidate.map((item, index) =>
      maskKeptSecrets(item, Array.isArray(running) ? running[index] : undefined),
    )
  return Object.fromEntries(
    Object.entries(candidate).map(([key, value]) => [
      key,
      // A header's every value is a secret (an Authorization); elsewhere the key says it.
      maskKeptSecrets(value, holder[key], key === 'headers' || secret || isSecretKey(key)),
    ]),
  )
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  return issues.filter(
    (issue, index) => issues.findIndex((other) => isDeepStrictEqual(other, issue)) === index,
  )
}
