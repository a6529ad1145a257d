/**
 * `charpipe card import FILE… [--as-new] [--config FILE]`: imports Character Cards (V1/V2/V3,
 * `.json` or a `.png` carrying one) as characters, printing the id each one got. Each card is kept
 * in the characters folder (`characters_dir`, by default the data folder's `characters`) as
 * `<id>.json`, its picture beside it as `<id>.png`: config.yaml is not touched, except that an entry
 * an earlier import left there for the same id goes. A card whose character is already there updates
 * it; with `--as-new` it is kept beside it under a new id. Every card is read and checked first: when
 * one is bad, its error is printed and nothing is written.
 */
import { readFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { type CardContentType, importCharacterCard } from '../../characters/cards/index.js'
import { resolveCharactersDir } from '../../characters/characters-folder.js'
import { parseConfigFile, parseConfigText } from '../../characters/load-config.js'
import { type SaveCharacterCardResult, saveCharacterCard } from '../../characters/save-character-card.js'
import { characterIdOf } from '../../config/character-id.js'
import { checkConfigChange } from '../../config/gate/index.js'
import type { CharpipeConfig } from '../../config/schema.js'
import { listCharacterIds } from '../../config/select-character-config.js'
import { checkPipelineConfig } from '../../context/check-pipeline-config.js'
import { applyChangesToYaml, writeFileAtomically } from '../../server/write-config-file.js'
import { CharpipeError, InvalidConfigError } from '../../shared/errors.js'
import { createLogger } from '../../shared/logger.js'
import { DEFAULT_CONFIG_PATH, loadCliConfig, runCommand } from '../load-cli-config.js'
import { parseActionArgs } from '../parse-action-args.js'

export const summary = 'Import Character Cards (JSON or PNG) as characters'
export const usage = 'charpipe card import FILE… [--as-new] [--config FILE]'

const contentTypes: Record<string, CardContentType> = { '.json': 'application/json', '.png': 'image/png' }

interface ReadCard {
  file: string
  id: string
  cardJson: string
  picture?: Uint8Array
}

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    const parsed = parseActionArgs({
      args,
      command: 'card',
      actions: ['import'],
      usage,
      switches: ['as-new'],
    })
    if (!parsed) return 2
    const files = parsed.rest
    if (files.length === 0) {
      console.error('charpipe card import: name at least one card file (.json or .png)')
      return 2
    }
    const configPath = parsed.configPath ?? DEFAULT_CONFIG_PATH
    const loaded = await loadCliConfig(parsed.configPath)
    const cards = await readCards(files)
    if (!cards) return 1
    assignIds(loaded.config, cards, parsed.switches.has('as-new'))
    const { dir } = resolveCharactersDir(loaded.config)
    const saved: SaveCharacterCardResult[] = []
    for (const card of cards) saved.push(await saveCharacterCard({ dir, ...card }))
    if (!(await dropConfigEntries(configPath, cards, loaded.config))) {
      for (const save of saved.reverse()) await save.restore()
      return 1
    }
    for (const card of cards) console.log(card.id)
    return 0
  })
}

/** Every card read and checked; undefined (after printing why) when any is bad. */
async function readCards(files: string[]): Promise<ReadCard[] | undefined> {
  const cards: ReadCard[] = []
  let failed = false
  for (const file of files) {
    const contentType = contentTypes[extname(file).toLowerCase()]
    if (!contentType) {
      console.error(`charpipe card import: ${file}: expected a .json or .png card`)
      failed = true
      continue
    }
    try {
      const imported = importCharacterCard(new Uint8Array(await readFile(file)), contentType)
      cards.push({ file, id: imported.id, cardJson: imported.cardJson, picture: imported.picture })
    } catch (error) {
      const reason = CharpipeError.isInstance(error)
        ? error.message
        : `cannot read it: ${(error as Error).message}`
      console.error(`charpipe card import: ${file}: ${reason}`)
      failed = true
    }
  }
  if (failed) {
    console.error('charpipe card import: nothing was imported')
    return undefined
  }
  return cards
}

/** A card's own id, which updates the character there; a free one for `--as-new` or the default's id. */
function assignIds(config: CharpipeConfig, cards: ReadCard[], asNew: boolean): void {
  const taken = new Set([...listCharacterIds(config), characterIdOf(config.character)])
  const defaultId = characterIdOf(config.character)
  for (const card of cards) {
    if (!asNew && card.id !== defaultId) {
      taken.add(card.id)
      continue
    }
    let id = card.id
    for (let index = 2; taken.has(id); index++) id = `${card.id.slice(0, 60)}-${index}`
    taken.add(id)
    card.id = id
  }
}

/**
 * Removes the config file's entries for the imported ids (an earlier import into config.yaml), then
 * checks the whole config with the new files; false (after printing why) when it is not valid.
 */
async function dropConfigEntries(path: string, cards: ReadCard[], running: CharpipeConfig): Promise<boolean> {
  let text = ''
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const stored = text.trim() === '' ? {} : parseConfigText(text, path)
  const entries = (stored.characters ?? {}) as Record<string, unknown>
  const ids = [...new Set(cards.map((card) => card.id))].filter((id) => Object.hasOwn(entries, id))
  const next = ids.length
    ? applyChangesToYaml(
        text,
        ids.map((id) => ({ path: ['characters', id], value: undefined, remove: true })),
      )
    : text
  try {
    const raw = next.trim() === '' ? {} : parseConfigText(next, path)
    const candidate = parseConfigFile(raw, {
      source: path,
      checks: [checkPipelineConfig],
      logger: quiet,
    }).config
    // The cards pass the trust gate as any change from outside the file does.
    const refused = await checkConfigChange({ source: 'card', candidate, running })
    if (refused.length > 0) throw new InvalidConfigError(refused, { source: path })
  } catch (error) {
    console.error(`charpipe card import: ${CharpipeError.isInstance(error) ? error.message : String(error)}`)
    console.error('charpipe card import: nothing was imported')
    return false
  }
  if (next !== text) await writeFileAtomically(path, next)
  return true
}

const quiet = createLogger({ level: 'silent' })
