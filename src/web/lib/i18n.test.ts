import { afterEach, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { configSchema } from '../../config/schema.js'
import { builtinProcessors } from '../../context/builtin-processors.js'
import { fieldTexts } from './field-texts.js'
import {
  describeField,
  describeIssue,
  describeOption,
  detectLanguage,
  setLanguage,
  toFieldTextPath,
  translate,
} from './i18n.js'
import { findSchemaNode, type JsonSchemaNode } from './json-schema-node.js'
import { pageMessages } from './page-messages.js'
import { shownFieldPaths } from './panel-fields.js'

const schema = z.toJSONSchema(configSchema, { io: 'input' }) as JsonSchemaNode
const schemaNode = (path: string) => findSchemaNode(schema, path.replace(/\.\*(?=\.|$)/g, '.0'))

afterEach(() => setLanguage('zh'))

describe('detectLanguage', () => {
  it('keeps a stored choice, else follows the browser, else English', () => {
    expect(detectLanguage({ stored: 'en', browserLanguages: ['zh-CN'] })).toBe('en')
    expect(detectLanguage({ stored: null, browserLanguages: ['zh-TW', 'en'] })).toBe('zh')
    expect(detectLanguage({ stored: 'fr', browserLanguages: ['en-US'] })).toBe('en')
    expect(detectLanguage({})).toBe('en')
  })
})

describe('page messages', () => {
  it('has every key in both languages with the same placeholders', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort()
    for (const [key, zh] of Object.entries(pageMessages.zh)) {
      const en = pageMessages.en[key as keyof typeof pageMessages.en]
      expect(zh.trim(), key).not.toBe('')
      expect(en?.trim(), key).toBeTruthy()
      expect(placeholders(en), key).toEqual(placeholders(zh))
    }
    expect(Object.keys(pageMessages.en).sort()).toEqual(Object.keys(pageMessages.zh).sort())
  })

  it('speaks the chosen language and fills placeholders', () => {
    setLanguage('en')
    expect(translate('chat.history', { session: 'a', count: 3 })).toBe('Stored messages of session a: 3')
    setLanguage('zh')
    expect(translate('chat.history', { session: 'a', count: 3 })).toBe('会话 a 已保存的消息：3 条')
  })

  it('leads a server validation message in the page language and keeps its words', () => {
    const issue = { path: 'character.reply_format', message: 'Invalid option: expected one of "json"|"auto"' }
    setLanguage('zh')
    expect(describeIssue(issue)).toBe(`配置无效：character.reply_format：${issue.message}`)
    setLanguage('en')
    expect(describeIssue(issue)).toBe(`Invalid config: character.reply_format: ${issue.message}`)
  })
})

describe('field texts', () => {
  it('gives every field the panels show a label in both languages and a Chinese description', () => {
    for (const path of shownFieldPaths) {
      const entry = fieldTexts[path]
      expect(entry, path).toBeDefined()
      expect(entry?.en, path).toBeTruthy()
      expect(entry?.zh, path).toBeTruthy()
      if (schemaNode(path)?.description) expect(entry?.zhHint, path).toBeTruthy()
    }
  })

  it('names only fields that exist: config paths in the schema, processors and their options', () => {
    const processors = new Map(builtinProcessors.map((processor) => [processor.id, processor]))
    for (const path of Object.keys(fieldTexts)) {
      const processorMatch = path.match(/^pipeline\.processors\.([^.]+)(?:\.(.+))?$/)
      if (!processorMatch) {
        expect(schemaNode(path), path).toBeDefined()
        continue
      }
      const [, id, option] = processorMatch
      if (id === '*') {
        expect(['enabled', 'priority'], path).toContain(option)
        continue
      }
      const processor = processors.get(id as string)
      expect(processor, path).toBeDefined()
      if (option) {
        expect(
          processor?.configFields?.map((field) => field.key),
          path,
        ).toContain(option)
      }
    }
  })

  it('covers every builtin processor and every option it shows', () => {
    for (const processor of builtinProcessors) {
      expect(fieldTexts[`pipeline.processors.${processor.id}`], processor.id).toBeDefined()
      for (const field of processor.configFields ?? []) {
        expect(fieldTexts[`pipeline.processors.${processor.id}.${field.key}`], field.key).toBeDefined()
      }
    }
  })

  it('reads Chinese texts from the table and English descriptions from the schema', () => {
    const description = schemaNode('character.persona')?.description
    setLanguage('zh')
    expect(describeField({ path: 'character.persona', description })).toEqual({
      label: '人设',
      hint: '角色是谁：性格、背景、说话方式。',
    })
    expect(describeField({ path: 'llm.fallbacks.2.model' }).label).toBe('模型')
    setLanguage('en')
    expect(describeField({ path: 'character.persona', description })).toEqual({
      label: 'Persona',
      hint: description,
    })
    // A field the table does not know still gets a usable label: the server's, else its key.
    expect(describeField({ path: 'pipeline.processors.my-plugin.level', label: 'Level' }).label).toBe('Level')
    expect(describeField({ path: 'storage.unknown' }).label).toBe('unknown')
  })

  it('translates select options the server labels in English', () => {
    const path = 'pipeline.processors.injection-assembler.memory_position'
    setLanguage('zh')
    expect(describeOption({ path, value: 'before_input', label: 'right before the input' })).toBe(
      '紧挨在输入之前（利于缓存）',
    )
    expect(describeOption({ path, value: 'elsewhere', label: 'elsewhere' })).toBe('elsewhere')
    setLanguage('en')
    expect(describeOption({ path, value: 'before_input', label: 'right before the input' })).toBe(
      'right before the input',
    )
    // Every option of every builtin processor has its Chinese label.
    for (const processor of builtinProcessors) {
      for (const field of processor.configFields ?? []) {
        for (const option of field.options ?? []) {
          const entry = fieldTexts[`pipeline.processors.${processor.id}.${field.key}`]
          expect(
            entry?.zhOptions?.[String(option.value)],
            `${field.key}=${String(option.value)}`,
          ).toBeTruthy()
        }
      }
    }
  })

  it('maps list rows to one entry', () => {
    expect(toFieldTextPath('llm.fallbacks.10.api_key')).toBe('llm.fallbacks.*.api_key')
    expect(toFieldTextPath('character.injected_history.0')).toBe('character.injected_history.*')
  })
})
