import { describe, expect, it } from 'vitest'
import { configSchema } from '../config/schema.js'
import { parseReplyStream } from './parse-reply-stream.js'
import { replyParserOptionsFromConfig } from './reply-parser-options-from-config.js'
import type { ReplyEvent } from './types.js'

async function* deltasOf(chunks: string[], record: { returned: boolean }) {
  try {
    for (const chunk of chunks) yield chunk
  } finally {
    record.returned = true
  }
}

describe('parseReplyStream', () => {
  it('yields the events of every delta and done last', async () => {
    const record = { returned: false }
    const events: ReplyEvent[] = []
    for await (const event of parseReplyStream(
      deltasOf(['{"emotion":"开心","text":"你好。', '再见"}'], record),
      {
        replyFormat: 'json',
      },
    )) {
      events.push(event)
    }
    expect(events.filter((event) => event.type !== 'display-delta')).toEqual([
      { type: 'emotion', emotion: '开心' },
      { type: 'sentence', index: 0, text: '你好。', emotion: '开心' },
      { type: 'sentence', index: 1, text: '再见', emotion: '开心' },
      { type: 'done', text: '你好。再见', emotion: '开心' },
    ])
  })

  it('leaving the loop early stops reading the deltas', async () => {
    const record = { returned: false }
    for await (const event of parseReplyStream(deltasOf(['一。', '二。', '三。'], record), {
      replyFormat: 'plain',
    })) {
      if (event.type === 'sentence') break
    }
    expect(record.returned).toBe(true)
  })
})

describe('replyParserOptionsFromConfig', () => {
  it('maps character.* and sentence.* and passes the log through', () => {
    const config = configSchema.parse({
      character: {
        reply_format: 'prefix',
        default_emotion: '害羞',
        emotions: ['害羞'],
        inline_emotion_tags: true,
      },
      sentence: { min_chars: 2, max_chars: 40, first_clause_chars: 6, speech_filters: ['emoji'] },
    })
    const log = () => {}
    expect(replyParserOptionsFromConfig(config, log)).toEqual({
      replyFormat: 'prefix',
      defaultEmotion: '害羞',
      emotions: ['害羞'],
      emotionAliases: config.character.emotion_aliases,
      inlineEmotionTags: true,
      thoughts: false,
      minChars: 2,
      maxChars: 40,
      firstClauseChars: 6,
      earlyRelease: true,
      speechFilters: ['emoji'],
      log,
    })
  })
})
