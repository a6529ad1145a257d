/**
 * The one place where a turn's input changes case: wire frames and request bodies (PROTOCOL.md)
 * are snake_case, library types camelCase. Every route that starts a turn passes its input through
 * here, so a new two-word field is converted once for all of them.
 */
import type { GenerateInput } from '../engine/types.js'

export interface WireInputFields {
  reply_images?: string[] | undefined
}

/** `input` with its wire names replaced by the library's (`reply_images` → `replyImages`). */
export function convertWireInput<Input extends WireInputFields>(
  input: Input,
): Omit<Input, keyof WireInputFields> & Pick<GenerateInput, 'replyImages'> {
  const { reply_images: replyImages, ...rest } = input
  return replyImages === undefined ? rest : { ...rest, replyImages }
}
