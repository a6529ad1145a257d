import { describe, expect, it } from 'vitest'
import { captureLogger } from '../providers/test-helpers.js'
import { createFakeProvider } from '../testing/index.js'
import { createModelFactExtractor, parseFactDecisions } from './create-model-fact-extractor.js'
import { readJsonReply } from './read-json-reply.js'

describe('readJsonReply', () => {
  it('takes the JSON out of a fence or out of words around it', () => {
    expect(readJsonReply('```json\n{"a": 1}\n```')).toEqual({ a: 1 })
    expect(readJsonReply('结果如下 [1, 2] 完毕')).toEqual([1, 2])
    expect(readJsonReply('{"memory": []}')).toEqual({ memory: [] })
  })

  it('names the problem when there is no JSON or it does not parse', () => {
    expect(() => readJsonReply('好的，我记住了')).toThrow(/holds no JSON: "好的，我记住了"/)
    expect(() => readJsonReply('{"memory": [}')).toThrow(/not valid JSON/)
    expect(() => readJsonReply('{"memory": [')).toThrow(/no complete JSON/)
  })
})

describe('parseFactDecisions', () => {
  it('reads {memory: [...]} and bare lists, with numeric ids as strings', () => {
    expect(
      parseFactDecisions('{"memory":[{"event":"add","text":"用户喜欢茶"},{"event":"delete","id":7}]}'),
    ).toEqual([
      { event: 'add', text: '用户喜欢茶' },
      { event: 'delete', id: '7', text: '' },
    ])
    expect(parseFactDecisions('[{"event":"none"}]')).toEqual([{ event: 'none', text: '' }])
  })

  it('refuses an unknown event, naming where', () => {
    expect(() => parseFactDecisions('{"memory":[{"event":"rename","text":"x"}]}')).toThrow(/memory\.0\.event/)
    expect(() => parseFactDecisions('{"facts":[]}')).toThrow(/no "memory" list/)
  })
})

describe('createModelFactExtractor', () => {
  it('asks the model with the turn and the known memories, and returns its decisions', async () => {
    const provider = createFakeProvider({
      replies: [[{ type: 'text-delta', text: '{"memory":[{"event":"update","id":"m1","text":"新"}]}' }]],
    })
    const extractor = createModelFactExtractor({ provider, timeoutMs: 1000, logger: captureLogger().logger })
    const decisions = await extractor.extract('用户: 你好', [{ id: 'm1', text: '旧' }])
    expect(decisions).toEqual([{ event: 'update', id: 'm1', text: '新' }])
    const sent = JSON.stringify(provider.calls[0]!.request.messages)
    expect(sent).toContain('[m1] 旧')
    expect(sent).toContain('用户: 你好')
  })

  it('returns no decisions and logs when the model fails', async () => {
    const provider = createFakeProvider({ replies: [[{ type: 'text-delta', text: 'no json here' }]] })
    const log = captureLogger()
    const extractor = createModelFactExtractor({ provider, timeoutMs: 1000, logger: log.logger })
    expect(await extractor.extract('用户: 你好', [])).toEqual([])
    expect(log.lines.some((line) => /fact extraction failed/.test(line.msg))).toBe(true)
  })
})
