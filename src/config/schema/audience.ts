/**
 * The `audience` section (group chats and live streams): how a session's selector picks the
 * messages the character answers, and when the character speaks first. It appears at the top level
 * and, without defaults, in any character, whose fields win over the top level's.
 */
import * as z from 'zod'

const weight = (fallback: number, description: string) =>
  z.number().min(0).max(1_000_000).default(fallback).describe(description)

const audienceWeightsSchema = z
  .strictObject({
    owner: weight(100, "Added to a message of the session's owner (role owner)."),
    moderator: weight(50, 'Added to a message of a moderator.'),
    gift: weight(40, 'Added to a message that comes with a gift.'),
    mention: weight(30, 'Added to a message that names the character (its name, `@name`).'),
    question: weight(10, 'Added to a message that asks a question.'),
    first_message: weight(10, "Added to a speaker's first message in the session."),
    member: weight(5, 'Added to a message of a member (subscriber).'),
  })
  .describe('Priority of a message: 1 plus the weight of each thing that applies to it.')

const audienceIdleSchema = z
  .strictObject({
    after_ms: z
      .int()
      .min(0)
      .max(86_400_000)
      .default(0)
      .describe(
        'After this long without input or audience messages the character speaks on its own (trigger idle), only where a person has spoken or is present (a follower alone never starts it); 0: never.',
      ),
    max_in_row: z
      .int()
      .min(1)
      .max(1000)
      .default(2)
      .describe('Idle turns in a row at most; any input or audience message starts the count again.'),
    instruction: z
      .string()
      .max(4000)
      .default('')
      .describe(
        "What the character is asked to do when it speaks first (sent as the turn's input); empty: a builtin line in the character's language asking it to start a topic.",
      ),
  })
  .describe('Speaking first when the session goes quiet.')

export const audienceSchema = z
  .strictObject({
    reply: z
      .enum(['selected', 'mentions', 'every', 'none'])
      .default('selected')
      .describe(
        'selected: the best messages by weight; mentions: only messages naming the character (and the owner); every: each message in turn; none: observe only.',
      ),
    queue_max: z
      .int()
      .min(1)
      .max(100_000)
      .default(50)
      .describe(
        'Messages waiting for a reply at most; past it the lowest priority (the oldest among equals) is dropped.',
      ),
    max_wait_ms: z
      .int()
      .min(100)
      .max(86_400_000)
      .default(30_000)
      .describe('A message waiting longer is not answered (it stays observed) and is dropped as too_old.'),
    batch_max: z
      .int()
      .min(1)
      .max(100)
      .default(8)
      .describe('Messages one reply answers at most, named so the model knows whom it answers.'),
    min_gap_ms: z
      .int()
      .min(0)
      .max(3_600_000)
      .default(1500)
      .describe('Pause after a reply before the next audience reply, so its speech can finish.'),
    dedupe_window_ms: z
      .int()
      .min(0)
      .max(3_600_000)
      .default(10_000)
      .describe(
        "Within this window a speaker's repeated text is dropped as duplicate, and a flood from one speaker keeps one message waiting.",
      ),
    blocked_words: z
      .array(z.string().min(1).max(200))
      .max(10_000)
      .default([])
      .describe(
        'A message containing one of these (case and width ignored) is dropped as blocked and never reaches the model.',
      ),
    ignore_speakers: z
      .array(z.string().min(1).max(200))
      .max(10_000)
      .default([])
      .describe(
        "Speaker ids whose messages are observed (the model reads them) but never answered: other bots in the chat. Compared with the message's speaker id as the source gives it.",
      ),
    speaker_turns_per_minute: z
      .int()
      .min(1)
      .max(10_000)
      .default(6)
      .describe(
        "Replies answering one speaker in any minute at most; past it the speaker's messages are observed only, dropped with reason speaker_rate.",
      ),
    weights: audienceWeightsSchema.prefault({}),
    idle: audienceIdleSchema.prefault({}),
  })
  .describe('Audience messages (group chats, live streams): what the character answers, and speaking first.')

/** The fields of a section with their defaults taken off and each made optional. */
function withoutDefaults<Shape extends Record<string, z.ZodDefault>>(shape: Shape) {
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, z.optional(field.unwrap())]),
  ) as { [Key in keyof Shape]: z.ZodOptional<ReturnType<Shape[Key]['unwrap']>> }
}

const { weights: _weights, idle: _idle, ...topFields } = audienceSchema.shape

/** The `audience` block of a character: any field, none defaulted, each over the top level's. */
export const characterAudienceSchema = z
  .strictObject({
    ...withoutDefaults(topFields),
    weights: z.strictObject(withoutDefaults(audienceWeightsSchema.shape)).optional(),
    idle: z.strictObject(withoutDefaults(audienceIdleSchema.shape)).optional(),
  })
  .optional()
  .describe("This character's audience settings, each over the top-level `audience` field of the same name.")

export type AudiencePolicy = z.infer<typeof audienceSchema>
export type CharacterAudiencePolicy = z.infer<typeof characterAudienceSchema>
