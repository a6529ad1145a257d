/**
 * Reads the LoCoMo conversations from the dataset's zip, unpacked at run time into a temporary
 * folder with the system `unzip` (the data is never copied into the repository).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface LocomoTurn {
  diaId: string
  speaker: string
  /** The turn's words, plus the caption of an image it shared. */
  text: string
  /** Session date, milliseconds since the epoch (turns are spread a minute apart). */
  time: number
}

export interface LocomoQuestion {
  question: string
  evidence: string[]
  category: number
}

export interface LocomoConversation {
  id: string
  turns: LocomoTurn[]
  questions: LocomoQuestion[]
  /** Questions left out because an evidence id is malformed or names no turn. */
  skipped: number
}

interface RawTurn {
  speaker: string
  dia_id: string
  text: string
  blip_caption?: string
}

interface RawQuestion {
  question: string
  evidence?: unknown[]
  category: number
}

const months = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]

/** "1:56 pm on 8 May, 2023" → epoch milliseconds (UTC). */
export function parseSessionDate(text: string): number {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text)
  if (!match) throw new Error(`unreadable session date: ${text}`)
  const [, hour, minute, half, day, month, year] = match as unknown as string[]
  const monthIndex = months.indexOf((month as string).toLowerCase())
  if (monthIndex < 0) throw new Error(`unreadable month in session date: ${text}`)
  const hours = (Number(hour) % 12) + ((half as string).toLowerCase() === 'pm' ? 12 : 0)
  return Date.UTC(Number(year), monthIndex, Number(day), hours, Number(minute))
}

export function loadLocomo(zipPath: string): LocomoConversation[] {
  const folder = mkdtempSync(join(tmpdir(), 'locomo-'))
  try {
    const result = spawnSync('unzip', ['-q', '-o', zipPath, '-d', folder], { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`unzip failed: ${result.stderr || result.error}`)
    const dataFolder = join(folder, 'data', 'multimodal_dialog', 'locomo10_v2')
    return readdirSync(dataFolder)
      .filter((name) => name.endsWith('.json'))
      .sort((left, right) => Number.parseInt(left, 10) - Number.parseInt(right, 10))
      .map((name) =>
        readConversation(
          name.replace(/\.json$/, ''),
          JSON.parse(readFileSync(join(dataFolder, name), 'utf8')),
        ),
      )
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

function readConversation(id: string, raw: Record<string, unknown>): LocomoConversation {
  const turns: LocomoTurn[] = []
  const sessionNumbers = Object.keys(raw)
    .map((key) => /^session_(\d+)$/.exec(key)?.[1])
    .filter((value): value is string => value !== undefined)
    .map(Number)
    .sort((left, right) => left - right)
  for (const session of sessionNumbers) {
    const start = parseSessionDate(String(raw[`session_${session}_date_time`]))
    const sessionTurns = raw[`session_${session}`] as RawTurn[]
    sessionTurns.forEach((turn, index) => {
      const caption = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : ''
      turns.push({
        diaId: turn.dia_id,
        speaker: turn.speaker,
        text: `${turn.text}${caption}`,
        time: start + index * 60_000,
      })
    })
  }
  const known = new Set(turns.map((turn) => turn.diaId))
  const questions: LocomoQuestion[] = []
  let skipped = 0
  for (const question of raw.qa as RawQuestion[]) {
    const evidence = (question.evidence ?? []).map(String)
    const valid = evidence.length > 0 && evidence.every((id) => /^D\d+:\d+$/.test(id) && known.has(id))
    if (!valid) {
      skipped++
      continue
    }
    questions.push({
      question: question.question,
      evidence: [...new Set(evidence)],
      category: question.category,
    })
  }
  return { id, turns, questions, skipped }
}
