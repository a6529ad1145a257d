/**
 * The trust gate: config has one way in. The config file is the operator's and is trusted; its text
 * is the only place `${VAR}` is read from the environment (once, as it is read). Every other source
 * of config (the admin API, a character card over HTTP or `charpipe card import`, another server of
 * the cluster through Redis) passes `checkConfigChange` with its provenance, and the same rules apply
 * to each: file-only fields stay the file's, outbound addresses may not reach link-local or metadata
 * targets, a stored secret goes only to the host it was given for, and a cluster version carries
 * none of the fields each server keeps for itself. `configFieldTrust` is the one table of which
 * field holds an address, a path, a program or a secret and which rules guard it.
 */
export { type CheckConfigChangeOptions, type ConfigSource, checkConfigChange } from './check-config-change.js'
export type {
  FieldKind,
  FieldTrust,
  TrustRule,
} from './config-field-trust.js'
export {
  findNodeLocalFields,
  putBackNodeLocalFields,
  removeNodeLocalFields,
} from './split-node-local-fields.js'
