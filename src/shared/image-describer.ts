/**
 * The one thing the context pipeline needs from a vision model: a text description of an image.
 * It lives here, below both stages, so providers implement it without knowing the context stage
 * and the context stage uses it without knowing which provider answers.
 */
import type { Language } from './language/index.js'

export interface ImageDescriber {
  /**
   * The describer's endpoint cannot take an image URL: the pipeline fetches the image (with the
   * checks of `fetchRemoteImage`) and hands it over as a `data:` URI. @default false
   */
  needsImageBytes?: boolean
  describe(image: { url: string; mediaType?: string }, options: DescribeImageOptions): Promise<string>
}

export interface DescribeImageOptions {
  signal?: AbortSignal
  /**
   * The character's language: a describer without a prompt of its own asks in it, so the
   * description is written in it. @default 'zh'
   */
  language?: Language
}
