/**
 * The audio transcriber `llm.transcriber` configures: an OpenAI-compatible
 * `/audio/transcriptions` endpoint reached through the `openai` SDK, imported on first use, or
 * `undefined` when it is `null` (the pipeline then says the audio was not transcribed).
 */
import type { CharpipeConfig } from '../config/schema.js'
import type { AudioTranscriber } from '../shared/audio-transcriber.js'
import { InvalidConfigError, UpstreamHttpError } from '../shared/errors.js'
import { loadOnFirstUse } from '../shared/load-on-first-use.js'
import { registerSecrets } from '../shared/logger.js'
import {
  type BuildChatProviderSettingsOptions,
  buildChatProviderSettings,
} from './build-chat-provider-settings.js'
import { createNodeFetch } from './create-node-fetch.js'

export interface CreateAudioTranscriberOptions extends BuildChatProviderSettingsOptions {}

export function createAudioTranscriber(
  config: CharpipeConfig,
  options: CreateAudioTranscriberOptions = {},
): AudioTranscriber | undefined {
  const transcriber = config.llm.transcriber
  if (!transcriber) return undefined
  const path = 'llm.transcriber'
  const settings = buildChatProviderSettings(transcriber, path, config, options)
  if (settings.apiType !== 'openai') {
    throw new InvalidConfigError([
      {
        path: `${path}.provider`,
        message: `provider "${transcriber.provider}" has no OpenAI-compatible /audio/transcriptions endpoint; name one that has (e.g. openai) or a base_url`,
      },
    ])
  }
  registerSecrets([settings.apiKey])
  const loadClient = loadOnFirstUse(async () => {
    const { default: OpenAI, toFile } = await import('openai')
    const client = new OpenAI({
      baseURL: settings.baseUrl,
      // Local servers need no key, but the SDK refuses to start without one.
      apiKey: settings.apiKey || 'no-key',
      maxRetries: 0,
      timeout: transcriber.timeout_ms,
      logLevel: 'off',
      // The providers' transport: an upload goes through the global fetch, its answer still bounded.
      fetch: options.fetch ?? createNodeFetch().fetch,
    })
    return { client, toFile }
  })
  return {
    async transcribe(audio, transcribeOptions) {
      const { client, toFile } = await loadClient()
      const file = await toFile(audio.bytes, audio.name, { type: audio.mediaType })
      const result = await client.audio.transcriptions.create(
        {
          file,
          model: transcriber.model,
          response_format: 'json',
          ...(transcriber.language ? { language: transcriber.language } : {}),
        },
        { ...(transcribeOptions.signal ? { signal: transcribeOptions.signal } : {}) },
      )
      // Any server may answer: a transcript that is not text is refused here, naming it.
      const text = (result as { text?: unknown } | null)?.text
      if (typeof text !== 'string')
        throw new UpstreamHttpError(200, 'the transcription answer has no text field that is a string')
      return text
    },
  }
}
