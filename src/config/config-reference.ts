/**
 * Documents generated from the one config schema: `config.schema.json` (editor completion for
 * config.yaml) and `docs/config.md` (the reference). A test keeps the checked-in copies up to date.
 */
import * as z from 'zod'
import { configSchema } from './schema.js'

type JsonSchema = {
  type?: string | string[]
  description?: string
  default?: unknown
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  enum?: unknown[]
  anyOf?: JsonSchema[]
  additionalProperties?: boolean | JsonSchema
  minimum?: number
  exclusiveMinimum?: number
  maximum?: number
}

const largestSafeInteger = Number.MAX_SAFE_INTEGER

export function createConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >
  return { ...schema, title: 'charpipe config.yaml' }
}

function describeType(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' or ')
  if (schema.anyOf) return schema.anyOf.map(describeType).join(' or ')
  if (schema.type === 'array') return `list of ${schema.items ? describeType(schema.items) : 'values'}`
  if (
    schema.type === 'object' &&
    schema.additionalProperties &&
    typeof schema.additionalProperties === 'object'
  ) {
    return `map of ${describeType(schema.additionalProperties)}`
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any')
  const minimum = schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : schema.minimum
  const maximum =
    schema.maximum !== undefined && schema.maximum < largestSafeInteger ? schema.maximum : undefined
  if (minimum === undefined && maximum === undefined) return type
  if (maximum === undefined) return `${type} (${typeof minimum === 'number' ? `≥ ${minimum}` : minimum})`
  return `${type} (${minimum ?? '…'}–${maximum})`
}

function formatDefault(value: unknown): string {
  if (value === undefined) return ''
  const text = JSON.stringify(value)
  return `\`${text.length > 80 ? `${text.slice(0, 77)}…` : text}\``
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}

export function createConfigReferenceMarkdown(): string {
  const root = createConfigJsonSchema() as JsonSchema
  const lines = [
    '# config.yaml reference',
    '',
    'Generated from `src/config/schema.ts` by `npm run generate`; do not edit by hand.',
    'Every field is optional. `${ENV_VAR}` (or `${ENV_VAR:-fallback}`) in any string of the file is replaced from the',
    'environment, once, as the file is read (text from the admin API, cards and `characters_dir` stays literal).',
    'Secrets (keys, tokens, storage URLs) are shown as `***` by the admin API and the web page.',
    'Keys are read as written (`null:` is the key "null"); a list or a mapping used as a key is refused with its line.',
    'The `character` defaults shown are those of a Chinese, `C` or unset locale. With an English (or any other) locale',
    'a config without `character` gets `Assistant`, and English characters that set no emotions get',
    '`happy, calm, sad, angry, surprised, afraid, shy` (default `calm`): see docs/characters.md, "Language".',
    '',
  ]
  for (const [section, sectionSchema] of Object.entries(root.properties ?? {})) {
    lines.push(`## \`${section}\``, '', sectionSchema.description ?? '', '')
    lines.push('| field | type | default | description |', '| --- | --- | --- | --- |')
    const visit = (prefix: string, schema: JsonSchema) => {
      for (const [key, field] of Object.entries(schema.properties ?? {})) {
        const path = `${prefix}.${key}`
        lines.push(
          `| \`${path}\` | ${escapeCell(describeType(field))} | ${escapeCell(formatDefault(field.default))} | ${escapeCell(field.description ?? '')} |`,
        )
        // Nested objects, list items and nullable objects (fallbacks, embeddings) get their own rows.
        const nested = [field, field.items, ...(field.anyOf ?? [])].find((candidate) => candidate?.properties)
        if (nested) visit(nested === field.items ? `${path}[]` : path, nested)
      }
    }
    visit(section, sectionSchema)
    lines.push('')
  }
  return `${lines.join('\n').trimEnd()}\n`
}
