/**
 * A question that asks when ("When did Melanie run the race?", "什么时候去的北京？") is answered by
 * a memory that tells a time — "last Saturday", "yesterday", "two weeks ago" — which the memory's
 * own time turns into a date. For such a question this gives the index terms (as `segmentText`
 * makes them) that mark a memory as telling a time; for any other question, none.
 */
import { segmentText } from './segment-text.js'

const timeQuestionPatterns = [
  /^\s*when\b/iu,
  /\b(?:since|until|by) when\b/iu,
  /\bwhen (?:did|was|were|is|are|will|do|does|has|have|had)\b/iu,
  /\b(?:what|which) (?:time|date|day|week|month|year|season)\b/iu,
  /\bhow long ago\b/iu,
  /什么时候|啥时候|哪天|哪一天|哪年|哪一年|几月|几号|何时|多久以前/u,
]

const timeReferenceWords = `yesterday today tomorrow tonight ago last next week weekend month year
recently lately earlier soon morning night day monday tuesday wednesday thursday friday saturday
sunday january february march april may june july august september october november december
summer winter spring autumn fall
昨天 今天 明天 前天 后天 上周 下周 这周 本周 上个月 下个月 去年 今年 明年 周末 最近 刚才 早上 晚上 星期`

/** The index terms of the words above, made once. */
const timeReferenceTerms: readonly string[] = [
  ...new Set(segmentText(timeReferenceWords, { keepStopwords: true })),
]

/** The terms that mark a memory as telling a time, when `query` asks when; otherwise none. */
export function findTimeReferenceTerms(query: string): readonly string[] {
  return timeQuestionPatterns.some((pattern) => pattern.test(query)) ? timeReferenceTerms : []
}
