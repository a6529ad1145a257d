/**
 * The shape of audience messages as every way in takes them (the WebSocket `audience` frame,
 * `POST /api/sessions/:id/audience`, the library's `audience()`), so all three refuse the same things.
 */
import * as z from 'zod'

const audienceRoleSchema = z.enum(['viewer', 'member', 'moderator', 'owner'])

const audienceMessageSchema = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(128)
    .describe("The message's id on its platform (a resend with the same id is a duplicate)."),
  speaker: z.strictObject({
    id: z.string().min(1).max(200),
    name: z.string().max(100).optional(),
    role: audienceRoleSchema.optional().describe('Default viewer.'),
  }),
  text: z.string().max(100_000),
  images: z.array(z.string().min(1)).max(16).optional(),
  gift: z.strictObject({ name: z.string().min(1).max(200), value: z.number().min(0).optional() }).optional(),
  at: z.iso.datetime({ offset: true }).optional().describe('When it was said; default when it arrived.'),
})

export const audienceMessagesSchema = z.array(audienceMessageSchema).min(1).max(1000)
