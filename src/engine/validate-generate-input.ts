/**
 * Checks what a caller passes to `generate`/`preview` and fills the session default, naming the
 * field that is wrong (inputs come from WebSocket frames and HTTP bodies, so anything can arrive).
 */
import type { TurnInput } from '../context/types.js'
import { BadRequestError } from '../shared/errors.js'
import type { GenerateInput } from './types.js'

const maxSessionLength = 200

function checkStringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw new BadRequestError(`${field} must be a list of non-empty strings`)
  }
  return value.length > 0 ? [...value] : undefined
}

export interface ValidateGenerateInputOptions {
  /** Longest `text`, in characters (`conversation.max_input_chars`). */
  maxInputChars?: number
}

export function validateGenerateInput(
  input: GenerateInput | undefined,
  options: ValidateGenerateInputOptions = {},
): TurnInput {
  if (!input || typeof input !== 'object')
    throw new BadRequestError('input must be an object with a text field')
  const session = input.session ?? 'default'
  if (typeof session !== 'string' || session.trim() === '' || session.length > maxSessionLength) {
    throw new BadRequestError(`session must be a non-empty string of at most ${maxSessionLength} characters`)
  }
  if (typeof input.text !== 'string') throw new BadRequestError('text must be a string')
  if (options.maxInputChars !== undefined && input.text.length > options.maxInputChars) {
    throw new BadRequestError(
      `text is ${input.text.length} characters, longer than conversation.max_input_chars (${options.maxInputChars})`,
    )
  }
  if (input.emotion !== undefined && input.emotion !== null && typeof input.emotion !== 'string') {
    throw new BadRequestError('emotion must be a string')
  }
  const images = checkStringList(input.images, 'images')
  const files = checkStringList(input.files, 'files')
  if (input.text.trim() === '' && !images && !files) {
    throw new BadRequestError('text is empty and there are no images or files')
  }
  return {
    session,
    text: input.text,
    ...(input.emotion ? { emotion: input.emotion } : {}),
    ...(images ? { images } : {}),
    ...(files ? { files } : {}),
  }
}
