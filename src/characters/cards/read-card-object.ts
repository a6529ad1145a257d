/**
 * Reads a parsed card object of any spec (V1 flat, V2 `chara_card_v2`, V3 `chara_card_v3`, and a
 * V2/V3 `spec` with its fields at the top level instead of in `data`) into its `data`, checked against `cardDataSchema`. Every refusal is a `BadRequestError` that names the
 * field, so a person can fix the card.
 */
import { BadRequestError } from '../../shared/errors.js'
import { lookUpOwn } from '../../shared/look-up-own.js'
import { type CardData, cardDataSchema } from './card-schema.js'

export type CardSpec = 'v1' | 'v2' | 'v3'

export interface ReadCardObjectResult {
  spec: CardSpec
  data: CardData
}

const specs: Record<string, CardSpec> = { chara_card_v2: 'v2', chara_card_v3: 'v3' }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'a list' : typeof value
}

function detectSpec(card: Record<string, unknown>): { spec: CardSpec; data: unknown; prefix: string } {
  if (card.spec === undefined) {
    if (typeof card.name === 'string' || card.description !== undefined)
      return { spec: 'v1', data: card, prefix: '' }
    throw new BadRequestError(
      'not a character card: no "spec" (chara_card_v2 or chara_card_v3) and no "name" of a V1 card',
    )
  }
  // Own keys only: a card's `spec` of `toString` is no spec, not Object.prototype's function.
  const spec = typeof card.spec === 'string' ? lookUpOwn(specs, card.spec) : undefined
  if (!spec)
    throw new BadRequestError(
      `spec: ${JSON.stringify(card.spec)} is not a character card spec (chara_card_v2 or chara_card_v3)`,
    )
  // "V3 templates" and some exporters put the fields at the top level beside `spec`, with no `data`.
  if (card.data === undefined && typeof card.name === 'string') {
    const { spec: _spec, spec_version: _version, ...fields } = card
    return { spec, data: fields, prefix: '' }
  }
  if (!isRecord(card.data))
    throw new BadRequestError(
      `data: ${card.data === undefined ? 'missing' : `must be an object, got ${describeType(card.data)}`}`,
    )
  return { spec, data: card.data, prefix: 'data.' }
}

export function readCardObject(card: unknown): ReadCardObjectResult {
  if (!isRecord(card))
    throw new BadRequestError(`a character card must be a JSON object, got ${describeType(card)}`)
  const { spec, data, prefix } = detectSpec(card)
  const parsed = cardDataSchema.safeParse(data)
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${prefix}${issue.path.map(String).join('.')}: ${issue.message}`)
    throw new BadRequestError(`invalid character card: ${problems.join('; ')}`)
  }
  return { spec, data: parsed.data }
}
