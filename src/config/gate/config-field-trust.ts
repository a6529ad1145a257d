/**
 * What the trust gate knows of each config field that holds an address, a path, a program or a
 * secret, and the rules that follow from it. Every rule's list of fields is read from this one
 * table; a test walks the zod schema and fails when such a field has no entry here, so a new field
 * cannot be left unguarded.
 */

/** What a field holds. */
export type FieldKind = 'address' | 'url' | 'path' | 'program' | 'secret' | 'name'

/**
 * - `file-only`: set by the config file alone; refused from the admin API, cards and the cluster.
 * - `node-local`: each server's own (its file or its admin API); never taken from the cluster.
 * - `outbound-url`: an address the server sends requests to; no link-local or metadata target
 *   unless the file names it.
 * - `bound-to-host`: a secret sent only to the host it was given for.
 * - `masked`: shown as `***` by the admin API, the page and the logs.
 * - `not-fetched`: a URL the server never requests (the page shows it to the browser).
 * - `inert`: a name sent only with requests to its own service; no rule needed.
 */
export type TrustRule =
  | 'file-only'
  | 'node-local'
  | 'outbound-url'
  | 'bound-to-host'
  | 'masked'
  | 'not-fetched'
  | 'inert'

export interface FieldTrust {
  /** Dotted path; `*` is every item of a list or every entry of a map; a section covers its fields. */
  path: string
  kind: FieldKind
  rules: readonly TrustRule[]
}

const outbound = (path: string): FieldTrust => ({ path, kind: 'url', rules: ['outbound-url'] })
const boundSecret = (path: string): FieldTrust => ({
  path,
  kind: 'secret',
  rules: ['masked', 'bound-to-host'],
})

export const configFieldTrust: readonly FieldTrust[] = [
  { path: 'server.host', kind: 'address', rules: ['file-only'] },
  { path: 'server.port', kind: 'address', rules: ['file-only'] },
  // Who may administer a server is its own file's (or its admin's) choice, never the cluster's.
  { path: 'server.token', kind: 'secret', rules: ['masked', 'node-local'] },
  { path: 'server.admin_token', kind: 'secret', rules: ['masked', 'node-local'] },
  // A named client's token is a grant of chat: only the file hands one out.
  { path: 'server.clients', kind: 'secret', rules: ['file-only'] },
  { path: 'server.clients.*.token', kind: 'secret', rules: ['file-only', 'masked'] },
  outbound('llm.base_url'),
  outbound('llm.fallbacks.*.base_url'),
  outbound('llm.vision_describer.base_url'),
  outbound('llm.transcriber.base_url'),
  outbound('memory.embeddings.base_url'),
  outbound('openclaw.url'),
  outbound('tools.mcp_servers.*.url'),
  boundSecret('llm.api_key'),
  boundSecret('llm.fallbacks.*.api_key'),
  boundSecret('llm.vision_describer.api_key'),
  boundSecret('llm.transcriber.api_key'),
  boundSecret('memory.embeddings.api_key'),
  boundSecret('openclaw.token'),
  boundSecret('tools.mcp_servers.*.headers.*'),
  { path: 'openclaw.session_key', kind: 'name', rules: ['inert'] },
  { path: 'characters_dir', kind: 'path', rules: ['file-only'] },
  { path: 'assets.dirs', kind: 'path', rules: ['file-only'] },
  // Opens the private network to image fetches: as much the file's call as the folders it reads.
  { path: 'assets.allow_private_urls', kind: 'url', rules: ['file-only'] },
  { path: 'storage', kind: 'path', rules: ['file-only'] },
  { path: 'storage.redis_url', kind: 'secret', rules: ['file-only', 'masked'] },
  { path: 'storage.postgres_url', kind: 'secret', rules: ['file-only', 'masked'] },
  { path: 'tools.mcp_servers.*.command', kind: 'program', rules: ['file-only'] },
  { path: 'tools.mcp_servers.*.args', kind: 'program', rules: ['file-only'] },
  { path: 'tools.mcp_servers.*.env', kind: 'program', rules: ['file-only', 'masked'] },
  { path: 'tools.mcp_servers.*.cwd', kind: 'path', rules: ['file-only'] },
  // The cluster's own settings (its signing key above all) are what each server trusts it with.
  { path: 'cluster', kind: 'name', rules: ['node-local'] },
  { path: 'cluster.shared_secret', kind: 'secret', rules: ['file-only', 'node-local', 'masked'] },
  // Where the character meets its audience (OneBot, Twitch, Bilibili): what the server dials or listens on, and
  // the tokens it logs in with. Each server's own, so a cluster never runs one connector twice.
  { path: 'connectors', kind: 'address', rules: ['file-only', 'node-local'] },
  { path: 'connectors.onebot.*.url', kind: 'url', rules: ['file-only', 'node-local'] },
  { path: 'connectors.onebot.*.listen', kind: 'path', rules: ['file-only', 'node-local'] },
  {
    path: 'connectors.onebot.*.access_token',
    kind: 'secret',
    rules: ['file-only', 'node-local', 'masked'],
  },
  { path: 'connectors.twitch.*.url', kind: 'url', rules: ['file-only', 'node-local'] },
  {
    path: 'connectors.twitch.*.oauth_token',
    kind: 'secret',
    rules: ['file-only', 'node-local', 'masked'],
  },
  { path: 'connectors.bilibili.*.url', kind: 'url', rules: ['file-only', 'node-local'] },
  { path: 'connectors.bilibili.*.api_url', kind: 'url', rules: ['file-only', 'node-local'] },
  {
    path: 'connectors.bilibili.*.cookie',
    kind: 'secret',
    rules: ['file-only', 'node-local', 'masked'],
  },
  { path: 'character.avatar', kind: 'url', rules: ['not-fetched'] },
  { path: 'characters.*.avatar', kind: 'url', rules: ['not-fetched'] },
]

/** The paths (split at dots) of the fields a rule applies to. */
export function listFieldPaths(rule: TrustRule): string[][] {
  return configFieldTrust.filter((field) => field.rules.includes(rule)).map((field) => field.path.split('.'))
}

/** The table's entry covering `path` (its own, or its section's), or undefined when it has none. */
export function findFieldTrust(path: string): FieldTrust | undefined {
  const segments = path.split('.')
  const covers = (field: FieldTrust) => {
    const pattern = field.path.split('.')
    if (pattern.length > segments.length) return false
    return pattern.every((key, index) => key === '*' || key === segments[index])
  }
  // The most specific entry wins (`storage.redis_url` over `storage`).
  return configFieldTrust
    .filter(covers)
    .sort((left, right) => right.path.split('.').length - left.path.split('.').length)[0]
}
