/**
 * The one thing the context pipeline needs from a vision model: a text description of an image.
 * It lives here, below both stages, so providers implement it without knowing the context stage
 * and the context stage uses it without knowing which provider answers.
 */
export interface ImageDescriber {
  describe(image: { url: string; mediaType?: string }, options: { signal?: AbortSignal }): Promise<string>
}
