/**
 * What a turn has said so far, across model steps (a ReAct turn may speak in several calls): display
 * text, the spoken sentences and the current emotion. A fresh reply parser per model step keeps one
 * step's JSON envelope from swallowing the next; sentence indexes run on across steps.
 */
import type { ReplyEvent, ReplyParser, ReplyParserOptions } from '../reply/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import type { EngineParts } from './engine-parts.js'

type EmitTurnEvent = (event: DistributiveOmit<CharpipeEvent, 'session' | 'turn'>) => void
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

export interface TurnReply {
  push(delta: string): void
  /** Ends the current model step: flushes its last sentence. */
  endStep(): void
  readonly displayText: string
  readonly emotion: string
  readonly sentences: readonly string[]
}

export function createTurnReply(
  parts: Pick<EngineParts, 'createReplyParser'>,
  options: ReplyParserOptions,
  emit: EmitTurnEvent,
  /** The character's `default_emotion`: the emotion until the model gives one. */
  defaultEmotion: string,
): TurnReply {
  let parser: ReplyParser | undefined
  let finishedText = ''
  let emotion = options.defaultEmotion || defaultEmotion
  let emittedEmotion: string | undefined
  const sentences: string[] = []

  const forward = (events: ReplyEvent[]) => {
    for (const event of events) {
      if (event.type === 'display-delta') {
        if (event.text) emit({ type: 'llm_chunk', text: event.text })
      } else if (event.type === 'emotion') {
        emotion = event.emotion
        if (event.emotion !== emittedEmotion) {
          emittedEmotion = event.emotion
          emit({ type: 'llm_emotion', emotion: event.emotion })
        }
      } else if (event.type === 'sentence') {
        emotion = event.emotion
        emit({ type: 'llm_sentence', index: sentences.length, text: event.text, emotion: event.emotion })
        sentences.push(event.text)
      } else {
        emotion = event.emotion
      }
    }
  }

  return {
    push(delta) {
      parser ??= parts.createReplyParser(options)
      forward(parser.push(delta))
    },
    endStep() {
      if (!parser) return
      forward(parser.end())
      finishedText += parser.displayText
      parser = undefined
    },
    get displayText() {
      return finishedText + (parser?.displayText ?? '')
    },
    get emotion() {
      return parser?.emotion ?? emotion
    },
    get sentences() {
      return sentences
    },
  }
}

const cjk = /[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]/

/** Joins spoken sentences back into text: no space around CJK, one space between Latin sentences. */
export function joinSentences(sentences: readonly string[]): string {
  let text = ''
  for (const sentence of sentences) {
    if (text && !cjk.test(text.at(-1)!) && !cjk.test(sentence[0] ?? '')) text += ' '
    text += sentence
  }
  return text
}

export type { EmitTurnEvent }
