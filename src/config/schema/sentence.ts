/**
 * The `sentence` section: splitting replies into sentences and cleaning them for speech.
 */
import * as z from 'zod'

export const speechFilterSchema = z.enum(['markdown', 'emoji', 'stage_directions'])

export const sentenceSchema = z
  .strictObject({
    min_chars: z
      .int()
      .min(0)
      .max(10_000)
      .default(0)
      .describe('Merge a shorter sentence into the next one (0: off).'),
    max_chars: z.int().min(0).max(10_000).default(0).describe('Cut a longer sentence at a comma (0: off).'),
    first_clause_chars: z
      .int()
      .min(0)
      .max(10_000)
      .default(0)
      .describe('Emit the first clause of a reply at a comma once it has this many characters (0: off).'),
    early_release: z
      .boolean()
      .default(true)
      .describe(
        'Release a sentence as soon as a model chunk ends right after its 。！？!?；; instead of waiting for the ' +
          'next chunk; a closing quote, ～ or terminator that then follows leads the next sentence (silent to ' +
          'speech). Off: sentences never depend on how the reply was chunked.',
      ),
    speech_filters: z
      .array(speechFilterSchema)
      .default(['markdown'])
      .describe('Cleaning of sentence text for speech: markdown, emoji, stage_directions.'),
  })
  .describe('Sentence splitting for speech synthesis.')
