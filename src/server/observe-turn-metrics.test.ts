import { afterEach, describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../shared/events.js'
import { createServerMetrics, type ServerMetrics } from './create-server-metrics.js'

let metrics: ServerMetrics | undefined
afterEach(() => metrics?.close())

/** The value of one series in the registry's text, undefined when it is not there. */
async function readSeries(series: string): Promise<number | undefined> {
  const text = await metrics!.registry.metrics()
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const base = { session: 's', turn: 't1', trigger: 'audience' as const }

function playTurn(events: CharpipeEvent[]): void {
  const observe = metrics!.observeTurn(base)
  for (const event of events) observe?.(event)
}

describe('the server metrics as a turn observer', () => {
  it('times a turn from its report and counts its tokens, whatever started it', async () => {
    metrics = createServerMetrics()
    playTurn([
      { ...base, type: 'llm_chunk', text: '嗨' },
      { ...base, type: 'llm_sentence', text: '嗨。', emotion: 'happy', index: 0 },
      {
        ...base,
        type: 'llm_done',
        text: '嗨。',
        emotion: 'happy',
        interrupted: false,
        timing: { first_chunk_ms: 40, first_sentence_ms: 120, total_ms: 300 },
        usage: { prompt_tokens: 50, completion_tokens: 7, cached_tokens: 32 },
      },
    ])
    expect(await readSeries('charpipe_time_to_first_chunk_seconds_sum')).toBe(0.04)
    expect(await readSeries('charpipe_time_to_first_sentence_seconds_sum')).toBe(0.12)
    expect(await readSeries('charpipe_turn_duration_seconds_sum')).toBe(0.3)
    expect(await readSeries('charpipe_tokens_total{kind="prompt"}')).toBe(50)
    expect(await readSeries('charpipe_tokens_total{kind="completion"}')).toBe(7)
    expect(await readSeries('charpipe_tokens_total{kind="cached"}')).toBe(32)
    // Counting turns by endpoint is the endpoint's: the observer does not touch it.
    expect(await readSeries('charpipe_turns_total')).toBeUndefined()
  })

  it('counts errors by code, and leaves out the times a failed turn never reached', async () => {
    metrics = createServerMetrics()
    playTurn([
      { ...base, type: 'llm_error', code: 'upstream_timeout', message: 'the model did not answer' },
      {
        ...base,
        type: 'llm_done',
        text: '',
        emotion: 'neutral',
        interrupted: false,
        timing: { first_chunk_ms: null, first_sentence_ms: null, total_ms: 5000 },
      },
    ])
    expect(await readSeries('charpipe_errors_total{code="upstream_timeout"}')).toBe(1)
    expect(await readSeries('charpipe_time_to_first_chunk_seconds_count')).toBe(0)
    expect(await readSeries('charpipe_time_to_first_sentence_seconds_count')).toBe(0)
    expect(await readSeries('charpipe_turn_duration_seconds_count')).toBe(1)
    expect(await readSeries('charpipe_tokens_total{kind="prompt"}')).toBeUndefined()
  })
})
