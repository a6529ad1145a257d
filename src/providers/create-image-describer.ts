/**
 * An `ImageDescriber` (the context pipeline's attachment-text uses it for a chat model without
 * vision) on any chat provider with a vision model: one user message with the prompt and the image,
 * the streamed text collected into a short one-line description. It has its own timeout and stops
 * with the turn's signal.
 */

import { AbortedError, UpstreamStreamError, UpstreamTimeoutError } from '../shared/errors.js'
import type { ImageDescriber } from '../shared/image-describer.js'
import { readAttachmentTexts } from '../shared/language/index.js'
import type { ChatProvider } from './types.js'

export interface CreateImageDescriberOptions {
  provider: ChatProvider
  /**
   * What the model is asked about each image; empty or absent: the builtin prompt in the
   * language `describe` is given (Chinese when none).
   */
  prompt?: string
  /** No complete description by then: fail with `upstream_timeout`. */
  timeoutMs: number
  /** Most tokens of one description. @default 300 */
  maxTokens?: number
  /** The endpoint takes images as data URIs only (see ImageDescriber). @default false */
  needsImageBytes?: boolean
}

export function createImageDescriber(options: CreateImageDescriberOptions): ImageDescriber {
  return {
    needsImageBytes: options.needsImageBytes ?? false,
    async describe(image, { signal, language = 'zh' } = {}) {
      const prompt = options.prompt || readAttachmentTexts(language).describerPrompt
      const timeout = AbortSignal.timeout(options.timeoutMs)
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout
      let text = ''
      try {
        const stream = options.provider.streamChat(
          {
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: prompt },
                  {
                    type: 'image',
                    url: image.url,
                    ...(image.mediaType ? { mediaType: image.mediaType } : {}),
                  },
                ],
              },
            ],
            maxTokens: options.maxTokens ?? 300,
          },
          { signal: combined },
        )
        for await (const event of stream) if (event.type === 'text-delta') text += event.text
      } catch (error) {
        if (signal?.aborted) throw new AbortedError('the image description was aborted', { cause: error })
        if (timeout.aborted) {
          throw new UpstreamTimeoutError(`no image description within ${options.timeoutMs} ms`, {
            cause: error,
          })
        }
        throw error
      }
      // One line, and no bracket that would end the `[图片:…]` (`[Image: …]`) around it early.
      const description = text.replace(/\s+/g, ' ').replace(/\[/g, '［').replace(/\]/g, '］').trim()
      if (!description) throw new UpstreamStreamError('the vision model answered with no description')
      return description
    },
  }
}
