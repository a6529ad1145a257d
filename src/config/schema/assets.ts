/**
 * The `assets` section: which local files and fetched images the pipeline may read.
 */
import * as z from 'zod'

export const assetsSchema = z
  .strictObject({
    dirs: z.array(z.string()).default([]).describe('Local folders the pipeline may read attachments from.'),
    max_bytes: z
      .int()
      .min(1)
      .max(100 * 1024 * 1024)
      .default(10 * 1024 * 1024)
      .describe('Largest attachment read (or image fetched for a describer); at most 100 MiB.'),
    allow_private_urls: z
      .boolean()
      .default(false)
      .describe(
        'Let the server fetch image URLs that resolve to private, loopback or link-local addresses (only done for a describer that needs the bytes).',
      ),
  })
  .describe('Local files and fetched images.')
