/**
 * Builds one response from a turn's events, for both answers of `POST /v1/responses`: the stream
 * of Open Responses events (numbered by `sequence_number`, in the order the official SDK's stream
 * helper accumulates them: an item is added before its content, a content part before its deltas,
 * everything is done before `response.completed`) and the final resource. A non-streamed answer
 * runs the same builder and sends only the resource, so both always agree. `close` settles the
 * response and `end` says so, apart: the response is stored between them (store first, then tell).
 * The character's inner thought (`llm_thought`) is a `reasoning` item of its own with one
 * `reasoning_text` part, streamed as `response.reasoning.delta` and `response.reasoning.done`.
 */
import { randomUUID } from 'node:crypto'
import type { CharpipeEvent } from '../../shared/events.js'
import type { EmotionDialectWriter } from '../openai/create-emotion-dialect-writer.js'
import type { TurnFailure } from '../openai/send-openai-error.js'
import {
  createResponseResource,
  type FunctionCallOutputItem,
  type MessageOutputItem,
  type ReasoningOutputItem,
  type ResponseOutputItem,
  type ResponseResource,
  type ResponseResourceOptions,
  type ResponseStatus,
  type ResponseUsage,
} from './create-response-resource.js'

export type ResponseStreamEvent = { type: string; sequence_number: number } & Record<string, unknown>

export interface ResponseBuilderOptions
  extends Pick<ResponseResourceOptions, 'id' | 'model' | 'request' | 'store'> {
  /** Seconds since the epoch (the route's clock). */
  now(): number
  /** The emotion inline in the text, in the client's dialect (`profile.emotion`); always in `metadata`. */
  emotionWriter: EmotionDialectWriter
}

export interface ClientToolCall {
  id: string
  name: string
  arguments: unknown
}

export interface FinishResponseOptions {
  /** The reply's whole text: the output of a turn answered without chunks (a resent input id). */
  text?: string
  usage?: ResponseUsage
  emotion?: string
  /** The reply was cut (barge-in, the session's next input): the response is incomplete. */
  interrupted?: boolean
  failure?: TurnFailure
  /** The client left after this many events: the output keeps only what they carried. */
  writtenEvents?: number
}

function itemId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`
}

export function createResponseBuilder(options: ResponseBuilderOptions) {
  const createdAt = options.now()
  const output: ResponseOutputItem[] = []
  let sequence = 0
  let status: ResponseStatus = 'in_progress'
  let emotion: string | undefined
  let extra: Partial<ResponseResourceOptions> = {}
  /** The message item text is being added to, until a tool call or the end closes it. */
  let open: { item: MessageOutputItem; index: number } | undefined
  const writer = options.emotionWriter
  /** Whether the turn streamed any text (a turn answered again from the store streams none). */
  let wroteText = false
  /** Each text delta's event, for a response kept only as far as its client read. */
  const deltas: { sequence: number; item: MessageOutputItem; text: string }[] = []
  /** The event that added each output item. */
  const addedAt = new Map<ResponseOutputItem, number>()

  /** Keeps of the output only what the first `count` events carried. */
  function keepWritten(count: number): void {
    const kept = output.filter((item) => (addedAt.get(item) ?? 0) < count)
    output.splice(0, output.length, ...kept)
    for (const item of output) if (item.type === 'message') item.content[0]!.text = ''
    for (const delta of deltas)
      if (delta.sequence < count && delta.item.content[0]) delta.item.content[0].text += delta.text
  }

  const resource = (): ResponseResource =>
    createResponseResource({
      id: options.id,
      createdAt,
      model: options.model,
      request: options.request,
      store: options.store,
      status,
      // A copy: the events already built keep the output as it was when they were.
      output: structuredClone(output),
      ...(emotion ? { emotion } : {}),
      ...extra,
    })
  const event = (type: string, fields: Record<string, unknown>): ResponseStreamEvent => ({
    type,
    sequence_number: sequence++,
    ...fields,
  })

  function addText(text: string): ResponseStreamEvent[] {
    if (!text) return []
    const events: ResponseStreamEvent[] = []
    if (!open) {
      const item: MessageOutputItem = {
        type: 'message',
        id: itemId('msg'),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      }
      open = { item, index: output.length }
      output.push(item)
      addedAt.set(item, sequence)
      events.push(
        event('response.output_item.added', { output_index: open.index, item: structuredClone(item) }),
      )
      item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] })
      events.push(
        event('response.content_part.added', {
          item_id: item.id,
          output_index: open.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        }),
      )
    }
    open.item.content[0]!.text += text
    deltas.push({ sequence, item: open.item, text })
    events.push(
      event('response.output_text.delta', {
        item_id: open.item.id,
        output_index: open.index,
        content_index: 0,
        delta: text,
        logprobs: [],
      }),
    )
    return events
  }

  function closeText(itemStatus: MessageOutputItem['status']): ResponseStreamEvent[] {
    if (!open) return []
    const { item, index } = open
    open = undefined
    const part = item.content[0]!
    item.status = itemStatus
    return [
      event('response.output_text.done', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        text: part.text,
        logprobs: [],
      }),
      event('response.content_part.done', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: structuredClone(part),
      }),
      event('response.output_item.done', { output_index: index, item: structuredClone(item) }),
    ]
  }

  function addFunctionCall(call: ClientToolCall): ResponseStreamEvent[] {
    const events = closeText('completed')
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {})
    const item: FunctionCallOutputItem = {
      type: 'function_call',
      id: itemId('fc'),
      call_id: call.id,
      name: call.name,
      arguments: '',
      status: 'in_progress',
    }
    const index = output.length
    output.push(item)
    addedAt.set(item, sequence)
    events.push(event('response.output_item.added', { output_index: index, item: structuredClone(item) }))
    item.arguments = args
    events.push(
      event('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: args }),
      event('response.function_call_arguments.done', {
        item_id: item.id,
        output_index: index,
        arguments: args,
      }),
    )
    item.status = 'completed'
    events.push(event('response.output_item.done', { output_index: index, item: structuredClone(item) }))
    return events
  }

  function addReasoning(text: string): ResponseStreamEvent[] {
    // A thought of a later step comes after the text before it: that message item is done.
    const events = closeText('completed')
    const item: ReasoningOutputItem = { type: 'reasoning', id: itemId('rs'), summary: [], content: [] }
    const index = output.length
    output.push(item)
    addedAt.set(item, sequence)
    const where = { item_id: item.id, output_index: index, content_index: 0 }
    events.push(event('response.output_item.added', { output_index: index, item: structuredClone(item) }))
    events.push(
      event('response.content_part.added', { ...where, part: { type: 'reasoning_text', text: '' } }),
    )
    item.content.push({ type: 'reasoning_text', text })
    events.push(
      event('response.reasoning.delta', { ...where, delta: text }),
      event('response.reasoning.done', { ...where, text }),
      event('response.content_part.done', { ...where, part: { type: 'reasoning_text', text } }),
      event('response.output_item.done', { output_index: index, item: structuredClone(item) }),
    )
    return events
  }

  return {
    /** `response.created` and `response.in_progress`. */
    start(): ResponseStreamEvent[] {
      return [
        event('response.created', { response: resource() }),
        event('response.in_progress', { response: resource() }),
      ]
    },
    /** The stream events of one turn event (none for most). */
    push(turnEvent: CharpipeEvent): ResponseStreamEvent[] {
      if (turnEvent.type === 'llm_chunk' && turnEvent.text) {
        wroteText = true
        return addText(writer.writeText(turnEvent.text))
      }
      if (turnEvent.type === 'llm_emotion' || turnEvent.type === 'llm_sentence') {
        if (turnEvent.type === 'llm_emotion') emotion = turnEvent.emotion
        // An inline dialect releases the text held until its emotion was known, after its tag.
        return addText(writer.writeEmotion(turnEvent.emotion))
      }
      if (turnEvent.type === 'llm_thought') return addReasoning(turnEvent.text)
      if (turnEvent.type === 'tool_call' && turnEvent.client === true) {
        return [...addText(writer.end(emotion ?? '')), ...addFunctionCall(turnEvent)]
      }
      return []
    },
    /**
     * Closes the open item and settles the response: completed, incomplete or failed. A response
     * whose client left keeps only what was written to it (`writtenEvents`: the events before it left).
     */
    close(finish: FinishResponseOptions): ResponseStreamEvent[] {
      if (finish.emotion) emotion = finish.emotion
      const cut = finish.failure !== undefined || finish.interrupted === true
      const tail = wroteText
        ? writer.end(emotion ?? '')
        : writer.writeWhole(finish.text ?? '', '', emotion ?? '')
      const events = [...addText(tail), ...closeText(cut ? 'incomplete' : 'completed')]
      if (finish.writtenEvents !== undefined) keepWritten(finish.writtenEvents)
      if (finish.failure) {
        status = 'failed'
        extra = { error: { code: finish.failure.code, message: finish.failure.message } }
      } else {
        status = finish.interrupted ? 'incomplete' : 'completed'
        extra = {
          ...(finish.interrupted ? { incompleteReason: 'interrupted' } : { completedAt: options.now() }),
        }
      }
      if (finish.usage) extra.usage = finish.usage
      return events
    },
    /** Fails a settled response (its store failed): `end` then says `response.failed`. */
    fail(failure: { code: string; message: string }): void {
      status = 'failed'
      const { usage } = extra
      extra = { error: { code: failure.code, message: failure.message }, ...(usage ? { usage } : {}) }
    },
    /** The response's last event: `response.completed`, `response.incomplete` or `response.failed`. */
    end(): ResponseStreamEvent {
      const type = { failed: 'response.failed', incomplete: 'response.incomplete' }[status as string]
      return event(type ?? 'response.completed', { response: resource() })
    },
    resource,
  }
}

export type ResponseBuilder = ReturnType<typeof createResponseBuilder>
