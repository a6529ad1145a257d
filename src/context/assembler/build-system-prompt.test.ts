import { describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../config/schema.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions } from '../../testing/create-fake-build-options.js'
import { createContextPipeline } from '../create-context-pipeline.js'

async function systemPromptOf(config: CharpipeConfigInput): Promise<string> {
  const { messages } = await createContextPipeline().build(createFakeBuildOptions({ config }))
  return messageText(messages[0]!)
}

describe('the system prompt', () => {
  it('shows the scenario after the persona', async () => {
    const prompt = await systemPromptOf({
      character: {
        name: '艾拉',
        persona: '一名守林人。',
        scenario: '{{char}}在林间空地遇到{{user}}。',
        reply_format: 'plain',
      },
    })
    expect(prompt).toBe(
      '你是艾拉，正在和用户对话。\n\n【人设】\n一名守林人。\n\n【场景】\n艾拉在林间空地遇到用户。',
    )
  })

  it('puts the name, persona and scenario part where a template says {{original}}, and expands {{scenario}}', async () => {
    const character = { name: '艾拉', persona: '守林人', scenario: '林间', reply_format: 'plain' as const }
    const withOriginal = await systemPromptOf({
      character,
      pipeline: { processors: { 'injection-assembler': { system_prompt: '规则在前。\n{{original}}' } } },
    })
    expect(withOriginal).toBe('规则在前。\n你是艾拉，正在和用户对话。\n\n【人设】\n守林人\n\n【场景】\n林间')
    const withMacro = await systemPromptOf({
      character,
      pipeline: { processors: { 'injection-assembler': { system_prompt: '场景：{{scenario}}' } } },
    })
    expect(withMacro).toBe('场景：林间')
  })

  it("shows an English character's emotion named after an Object.prototype member as its name", async () => {
    // The labels are the character's configured `emotions`: `valueOf` is no default emotion.
    const prompt = await systemPromptOf({
      character: { name: 'Ella', language: 'en', emotions: ['开心', 'valueOf'], default_emotion: '开心' },
    })
    expect(prompt).toContain('happy, valueOf')
    expect(prompt).not.toContain('native code')
  })
})
