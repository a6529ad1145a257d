/**
 * Recall@k of evidence turns: for each question, the share of its evidence turns found among the
 * first k retrieved turns of its own conversation; averaged over questions, overall and per category.
 */
export interface RecallRow {
  label: string
  questions: number
  /** Mean recall in percent, by k. */
  recall: Record<number, number>
}

export interface QuestionOutcome {
  /** The conversation asked about (which split it belongs to). */
  conversation?: string
  category: number
  evidence: string[]
  /** Retrieved dialog ids, best first. */
  retrieved: string[]
}

export function measureRecall(outcomes: QuestionOutcome[], ks: number[]): RecallRow[] {
  const groups = new Map<string, QuestionOutcome[]>([['all', outcomes]])
  for (const outcome of outcomes) {
    const label = `category ${outcome.category}`
    groups.set(label, [...(groups.get(label) ?? []), outcome])
  }
  return [...groups.entries()]
    .sort(([left], [right]) => (left === 'all' ? -1 : right === 'all' ? 1 : left.localeCompare(right)))
    .map(([label, group]) => ({
      label,
      questions: group.length,
      recall: Object.fromEntries(
        ks.map((k) => [k, (100 * sum(group.map((item) => recallAt(item, k)))) / group.length]),
      ),
    }))
}

function recallAt(outcome: QuestionOutcome, k: number): number {
  const top = new Set(outcome.retrieved.slice(0, k))
  return outcome.evidence.filter((id) => top.has(id)).length / outcome.evidence.length
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0)
}
