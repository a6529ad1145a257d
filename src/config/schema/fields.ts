/**
 * Field builders shared by several sections: timeouts, secrets and the processor settings map.
 * One definition each, so every section bounds and describes them the same way.
 */
import * as z from 'zod'

/** A timeout in milliseconds: at least 100 ms (less cannot be met), at most one hour. */
export const timeoutMs = () => z.int().min(100).max(3_600_000)

export const secret = (description: string) =>
  z.string().default('').describe(`${description} \`\${ENV_VAR}\` is replaced from the environment.`)

export const processorSettingsSchema = z
  .looseObject({
    enabled: z.boolean().optional().describe('Run this processor.'),
    priority: z.number().min(-1_000_000).max(1_000_000).optional().describe('Lower runs first.'),
  })
  .describe("A processor's settings: `enabled`, `priority` and its own options (see its configFields).")

export const processorMapSchema = z.record(z.string(), processorSettingsSchema).default({})
