/**
 * The one thing the context pipeline needs from a speech-to-text model: the words of a recording.
 * It lives here, below both stages, like the image describer.
 */
export interface AudioTranscriber {
  transcribe(
    audio: { bytes: Uint8Array; name: string; mediaType: string },
    options: { signal?: AbortSignal },
  ): Promise<string>
}
