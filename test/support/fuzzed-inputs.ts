/**
 * Generated hostile inputs for the fuzzed doors (test/doors/: bodies, frames, ids and queries), a config (parse-config-any-value)
 * and a model's stream events (hostile-stream-events): a door's valid message with one field replaced (another type, `null`,
 * an object with `toString`/`valueOf` keys, a huge string, deep nesting), unknown fields, the
 * whole body replaced, truncated JSON, bytes that are no JSON, and a wrong content type. Each is
 * the text sent (a frame or a body), so `__proto__` keys and nesting deeper than any object
 * literal reach the server as written.
 */
import fc from 'fast-check'

/** A JSON value as text, or a value JSON.stringify writes. */
type Piece = { json: unknown } | { raw: string }

/** What a generated case changed, to count the cases per kind. */
export type FuzzKind = 'field' | 'unknown_fields' | 'whole' | 'truncated' | 'garbage'

/** Kinds no door may take: a strict prefix of a JSON object is never JSON. */
export const refusedKinds: ReadonlySet<FuzzKind> = new Set<FuzzKind>(['truncated'])

export interface FuzzedText {
  kind: FuzzKind
  text: string
  /** The `content-type` an HTTP door is sent it with. */
  contentType: string
}

/** Objects whose keys a careless `String(value)`, `+value` or `await` would call or trust. */
const trickyObjects: Record<string, unknown>[] = [
  { toString: 'not a function' },
  { valueOf: 1 },
  { toString: {}, valueOf: {} },
  { toJSON: null },
  // biome-ignore lint/suspicious/noThenProperty: a body that looks like a promise to a careless `await`.
  { then: 'not a function' },
  { constructor: { prototype: {} } },
  { length: 1e9 },
]

/**
 * Far past any limit of a field (100,000 characters is the audience schema's): in short words, and
 * (`longRun`) as one unbroken run of one letter or symbol, whose tokens a BPE tokenizer counts in
 * time that grows with the run's square unless it is fed in windows (a 40,000-character run of one
 * CJK character in a `/v1` system message held the loop for seconds in the mock model's usage count).
 */
const hugeString = fc
  .tuple(
    fc.integer({ min: 20_000, max: 300_000 }),
    fc.constantFrom('x', '慢', '😀', '\u0000', '\\', '\u202e'),
  )
  .map(([length, character]) => `${character} `.repeat(Math.ceil(length / (character.length + 1))))

const longRun = fc
  .tuple(fc.integer({ min: 1_000, max: 60_000 }), fc.constantFrom('x', '慢', '😀', '\u0000', '\\'))
  .map(([length, character]) => character.repeat(Math.ceil(length / character.length)))

/** Arrays or objects nested deeper than a recursive walk's stack holds. */
const deepNesting = fc.oneof(
  fc.integer({ min: 500, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 500, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
)

export const hostileValue: fc.Arbitrary<Piece> = fc.oneof(
  fc.constant<Piece>({ json: null }),
  fc
    .oneof(
      fc.integer(),
      fc.double(),
      fc.constantFrom(-0, 1e308, -1, 2 ** 53 + 2, 0),
      fc.boolean(),
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    )
    .map((json): Piece => ({ json })),
  fc.constantFrom(...trickyObjects).map((json): Piece => ({ json })),
  hugeString.map((json): Piece => ({ json })),
  longRun.map((json): Piece => ({ json })),
  deepNesting.map((raw): Piece => ({ raw })),
  fc.constant<Piece>({
    raw: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  }),
)

/** Every path to a value in `template` (a field, a field of a field, an array's item). */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix]
  const entries = Array.isArray(value)
    ? value.map((item, index) => [index, item] as const)
    : Object.entries(value)
  return [prefix, ...entries.flatMap(([key, item]) => pathsOf(item, [...prefix, key]))]
}

const placeholder = '\u0000raw-piece\u0000'

/** `template` as JSON text with the value at `path` replaced by `piece` (the whole when `path` is empty). */
function replaceAt(template: unknown, path: (string | number)[], piece: Piece): string {
  const value = 'json' in piece ? piece.json : placeholder
  let text: string
  if (path.length === 0) text = JSON.stringify(value) ?? 'null'
  else {
    const copy = structuredClone(template) as Record<string | number, unknown>
    let parent = copy
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
    parent[path.at(-1)!] = value
    text = JSON.stringify(copy)
  }
  return 'raw' in piece ? text.replace(JSON.stringify(placeholder), () => piece.raw) : text
}

/** Unknown keys put first into an object's text (`__proto__` survives no object literal). */
const unknownFields = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          '__proto__',
          'constructor',
          'prototype',
          'toString',
          'valueOf',
          'hasOwnProperty',
          'type',
        ),
        fc.string({ maxLength: 12 }),
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((pairs) => pairs.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)},`).join(''))

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/octet-stream',
      '',
    ),
  },
)

/** Generated texts built on `template`, a valid message of the door. */
export function fuzzedText(template: Record<string, unknown>): fc.Arbitrary<FuzzedText> {
  const paths = pathsOf(template).filter((path) => path.length > 0)
  const valid = JSON.stringify(template)
  const text: fc.Arbitrary<{ kind: FuzzKind; text: string }> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), hostileValue)
        .map(([path, piece]) => ({ kind: 'field' as const, text: replaceAt(template, path, piece) })),
    },
    {
      weight: 2,
      arbitrary: unknownFields.map((fields) => ({
        kind: 'unknown_fields' as const,
        text: `{${fields}${valid.slice(1)}`,
      })),
    },
    {
      weight: 1,
      arbitrary: hostileValue.map((piece) => ({
        kind: 'whole' as const,
        text: replaceAt(template, [], piece),
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: valid.length - 1 })
        .map((end) => ({ kind: 'truncated' as const, text: valid.slice(0, end) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.constantFrom('', ' ', 'null', '{', '"', '[]]'),
        )
        .map((garbage) => ({ kind: 'garbage' as const, text: garbage })),
    },
  )
  return fc.tuple(text, contentTypes).map(([each, contentType]) => ({ ...each, contentType }))
}

/**
 * An id as a client may write it in a path: any text encoded, a person id of each source, broken
 * percent escapes, dot segments, prototype names, or longer than a header may be.
 */
export const fuzzedPathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }).map((id) => encodeURIComponent(id)),
  fc
    .tuple(
      fc.constantFrom('speaker', 'onebot:qq', 'bilibili:room', 'client:web', 'session', 'twitch:x'),
      fc.string(),
    )
    .map(([source, id]) => encodeURIComponent(`${source}:${id}`)),
  fc.constantFrom(
    '%',
    '%E0%A4%A',
    '%00',
    '..',
    '%2e%2e',
    '%ZZ',
    '%C0%AF',
    'a%2Fb',
    '~forged~x',
    '__proto__',
    'constructor',
  ),
  fc.integer({ min: 1_000, max: 20_000 }).map((length) => 'x'.repeat(length)),
)

/** A query value: one a route takes (so the case reaches what is behind it) or one it must refuse. */
export const fuzzedQueryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('1', '5', 'true', 'false', 'alice', 'json', 'png') },
  fc.string({ maxLength: 60 }).map((value) => encodeURIComponent(value)),
  fc.constantFrom('%', '-1', '0', '1e309', 'NaN', '101', '2.5', '__proto__', 'true'),
  fc.integer({ min: 1_000, max: 60_000 }).map((length) => '慢'.repeat(length)),
)
