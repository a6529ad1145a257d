/**
 * The request bounds of the `/v1` endpoints (`server.limits.v1_*`), checked on the parsed JSON
 * before the request is validated or anything is done with it: a request of 200,000 input items
 * or 20,000 tools costs its parse only, never a validation, a prompt or a model call. Pure; it
 * reads untyped JSON, so anything of an unexpected shape is left to the request's schema.
 */

export interface V1RequestBounds {
  v1_input_items: number
  v1_instructions_chars: number
  v1_tools: number
  v1_tool_schema_bytes: number
}

export type V1Endpoint = 'chat_completions' | 'responses'

export interface FindRequestBoundBreachOptions {
  endpoint: V1Endpoint
  /** The request body, parsed JSON not yet validated. */
  body: unknown
  bounds: V1RequestBounds
}

export interface RequestBoundBreach {
  /** The request field past its bound. */
  param: string
  /** Names the bound and the setting that sets it. */
  message: string
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The characters of a message's content: a string, or the text of its parts. */
function countContentChars(content: unknown): number {
  if (typeof content === 'string') return content.length
  if (!Array.isArray(content)) return 0
  let chars = 0
  for (const part of content) if (isRecord(part) && typeof part.text === 'string') chars += part.text.length
  return chars
}

/** The client's instructions: `instructions`, or the system and developer messages of a chat. */
function countInstructionChars(endpoint: V1Endpoint, body: Record<string, unknown>): number {
  if (endpoint === 'responses') return typeof body.instructions === 'string' ? body.instructions.length : 0
  if (!Array.isArray(body.messages)) return 0
  let chars = 0
  for (const message of body.messages) {
    if (isRecord(message) && (message.role === 'system' || message.role === 'developer'))
      chars += countContentChars(message.content)
  }
  return chars
}

/** A tool's JSON schema: `parameters` of a Responses tool, `function.parameters` of a chat tool. */
function readToolParameters(endpoint: V1Endpoint, tool: unknown): unknown {
  if (!isRecord(tool)) return undefined
  if (endpoint === 'responses') return tool.parameters
  return isRecord(tool.function) ? tool.function.parameters : undefined
}

function describe(what: string, count: number, bound: number, setting: keyof V1RequestBounds): string {
  return `${what}: ${count}; at most ${bound} (server.limits.${setting})`
}

export function findRequestBoundBreach(
  options: FindRequestBoundBreachOptions,
): RequestBoundBreach | undefined {
  const { endpoint, body, bounds } = options
  if (!isRecord(body)) return undefined
  const itemsField = endpoint === 'responses' ? 'input' : 'messages'
  const items = body[itemsField]
  if (Array.isArray(items) && items.length > bounds.v1_input_items) {
    const what = `${itemsField} holds ${endpoint === 'responses' ? 'items' : 'messages'}`
    return {
      param: itemsField,
      message: describe(what, items.length, bounds.v1_input_items, 'v1_input_items'),
    }
  }
  const instructionChars = countInstructionChars(endpoint, body)
  if (instructionChars > bounds.v1_instructions_chars) {
    const param = endpoint === 'responses' ? 'instructions' : 'messages'
    const what =
      endpoint === 'responses' ? 'instructions: characters' : 'messages: system and developer characters'
    return {
      param,
      message: describe(what, instructionChars, bounds.v1_instructions_chars, 'v1_instructions_chars'),
    }
  }
  const tools = body.tools
  if (!Array.isArray(tools)) return undefined
  if (tools.length > bounds.v1_tools)
    return { param: 'tools', message: describe('tools', tools.length, bounds.v1_tools, 'v1_tools') }
  for (const [index, tool] of tools.entries()) {
    const parameters = readToolParameters(endpoint, tool)
    if (parameters === undefined || parameters === null) continue
    const bytes = Buffer.byteLength(JSON.stringify(parameters))
    if (bytes > bounds.v1_tool_schema_bytes) {
      const what = `tools.${index}: parameters bytes`
      return {
        param: 'tools',
        message: describe(what, bytes, bounds.v1_tool_schema_bytes, 'v1_tool_schema_bytes'),
      }
    }
  }
  return undefined
}
