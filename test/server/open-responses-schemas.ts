/**
 * Validates `/v1/responses` answers against the Open Responses OpenAPI document
 * (test/fixtures/open-responses/, with its provenance): a response resource against
 * `ResponseResource`, a streaming event against the schema its `type` names in the event-stream
 * `oneOf` of `POST /responses`. Ajv with JSON Schema 2020-12, the dialect of OpenAPI 3.1.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

const path = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'open-responses', 'openapi.json')
const document = JSON.parse(readFileSync(path, 'utf8'))
const id = 'https://openresponses.test/openapi.json'

// Not strict: the document carries OpenAPI keywords (discriminator, example, x-…) that are notes.
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)
ajv.addSchema({ ...document, $id: id })

const schemaRef = (name: string) => ({ $ref: `${id}#/components/schemas/${name}` })
const resourceValidator = ajv.compile(schemaRef('ResponseResource'))

/** The event schemas of the stream, by the event `type` each allows. */
const eventValidators = new Map<string, ValidateFunction>()
const streamSchema = document.paths['/responses'].post.responses['200'].content['text/event-stream'].schema
for (const { $ref } of streamSchema.oneOf as { $ref: string }[]) {
  const name = $ref.split('/').at(-1)!
  for (const type of document.components.schemas[name].properties.type.enum as string[]) {
    eventValidators.set(type, ajv.compile(schemaRef(name)))
  }
}

function describeErrors(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: '\n' })
}

/** Throws, naming every violation, unless `value` is a valid `ResponseResource`. */
export function expectValidResource(value: unknown): void {
  if (!resourceValidator(value))
    throw new Error(`not a ResponseResource:\n${describeErrors(resourceValidator)}`)
}

/** Throws unless `event` is a valid streaming event of its `type` (an unknown type is invalid too). */
export function expectValidEvent(event: { type?: unknown }): void {
  const type = String(event.type)
  const validate = eventValidators.get(type)
  if (!validate) throw new Error(`not an Open Responses event type: ${type}`)
  if (!validate(event)) throw new Error(`invalid ${type}:\n${describeErrors(validate)}`)
  // Events that carry a response carry a whole resource.
  const carried = (event as { response?: unknown }).response
  if (carried !== undefined) expectValidResource(carried)
}
