/**
 * A tool result that holds images beside its text (an MCP tool's screenshot, a chart). The tool loop
 * hands the images to the model the way `llm.vision` allows: as image parts for a vision model, as
 * descriptions through `llm.vision_describer`, or as placeholders. Everywhere else (events, logs,
 * JSON) the result is its text, with a placeholder where each image stood.
 */
import type { ImagePart, TextPart } from '../shared/messages.js'

const marker = Symbol.for('charpipe.toolResultContent')

export interface ToolResultContent {
  /** Text and images in the tool's order; images are `data:` URIs with their `mediaType`. */
  readonly parts: readonly (TextPart | ImagePart)[]
  /** The text, with `[image <type> not shown]` for each image. */
  toJSON(): string
}

/** The placeholder that stands for an image the model does not get. */
function renderImagePlaceholder(part: ImagePart): string {
  return `[image ${part.mediaType ?? ''} not shown]`
}

export function createToolResultContent(parts: readonly (TextPart | ImagePart)[]): ToolResultContent {
  const content = {
    parts,
    toJSON: () =>
      parts.map((part) => (part.type === 'text' ? part.text : renderImagePlaceholder(part))).join('\n'),
  }
  Object.defineProperty(content, marker, { value: true })
  return content
}

export function isToolResultContent(value: unknown): value is ToolResultContent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true
}
