/**
 * `charpipe card import FILE… [--config FILE]`: imports Character Cards (V1/V2/V3, `.json` or a
 * `.png` carrying one) as characters, printing the id each one got. With `characters_dir` set, each
 * card is copied there as `<id>.json` / `<id>.png` (kept whole, unknown fields and picture included);
 * otherwise it is written into the config file under `characters`. Every card is read and checked
 * first: when one is bad, its error is printed and nothing is written.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { type CardContentType, importCharacterCard } from '../../characters/cards/index.js'
import { escapeEnvReferences } from '../../config/env-substitution.js'
import { checkConfigChange } from '../../config/gate/index.js'
import { parseConfigFile, parseConfigText } from '../../config/load-config.js'
import { listCharacterIds } from '../../config/select-character-config.js'
import { checkPipelineConfig } from '../../context/check-pipeline-config.js'
import { applyChangesToYaml, writeFileAtomically } from '../../server/write-config-file.js'
import { CharpipeError, InvalidConfigError } from '../../shared/errors.js'
import { createLogger } from '../../shared/logger.js'
import { DEFAULT_CONFIG_PATH, loadCliConfig, runCommand } from '../load-cli-config.js'
import { parseActionArgs } from '../parse-action-args.js'

export const summary = 'Import Character Cards (JSON or PNG) as characters'
export const usage = 'charpipe card import FILE… [--config FILE]'

const contentTypes: Record<string, CardContentType> = { '.json': 'application/json', '.png': 'image/png' }

interface ReadCard {
  file: string
  bytes: Uint8Array
  extension: string
  id: string
  character: Record<string, unknown>
}

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    const parsed = parseActionArgs({ args, command: 'card', actions: ['import'], usage })
    if (!parsed) return 2
    const files = parsed.rest
    if (files.length === 0) {
      console.error('charpipe card import: name at least one card file (.json or .png)')
      return 2
    }
    const loaded = await loadCliConfig(parsed.configPath)
    const cards = await readCards(files)
    if (!cards) return 1
    const taken = new Set(listCharacterIds(loaded.config))
    for (const card of cards) card.id = takeFreeId(taken, card.id)
    const dir = loaded.config.characters_dir
    if (dir) {
      for (const card of cards) await writeFile(join(dir, `${card.id}${card.extension}`), card.bytes)
    } else if (!(await writeIntoConfig(parsed.configPath ?? DEFAULT_CONFIG_PATH, cards))) {
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
    const extension = extname(file).toLowerCase()
    const contentType = contentTypes[extension]
    if (!contentType) {
      console.error(`charpipe card import: ${file}: expected a .json or .png card`)
      failed = true
      continue
    }
    try {
      const bytes = new Uint8Array(await readFile(file))
      const imported = importCharacterCard(bytes, contentType)
      cards.push({
        file,
        bytes,
        extension,
        id: imported.id,
        character: imported.character as Record<string, unknown>,
      })
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

function takeFreeId(taken: Set<string>, wanted: string): string {
  let id = wanted
  for (let index = 2; taken.has(id); index++) id = `${wanted.slice(0, 60)}-${index}`
  taken.add(id)
  return id
}

/** Adds the characters to the config file, checked as a whole before it is written. */
async function writeIntoConfig(path: string, cards: ReadCard[]): Promise<boolean> {
  let text = ''
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const next = applyChangesToYaml(
    text,
    // A card's text is its author's, not the file's: `${VAR}` in it stays literal when the file is read.
    cards.map((card) => ({ path: ['characters', card.id], value: escapeEnvReferences(card.character) })),
  )
  try {
    const parse = (yaml: string) =>
      parseConfigFile(parseConfigText(yaml, path), {
        source: path,
        checks: [checkPipelineConfig],
        logger: createLogger({ level: 'silent' }),
      }).config
    // The cards pass the trust gate as any change from outside the file does.
    const refused = await checkConfigChange({
      source: 'card',
      candidate: parse(next),
      running: parse(text),
      file: { candidate: parseConfigText(next, path), running: parseConfigText(text, path) },
    })
    if (refused.length > 0) throw new InvalidConfigError(refused, { source: path })
  } catch (error) {
    console.error(`charpipe card import: ${CharpipeError.isInstance(error) ? error.message : String(error)}`)
    console.error('charpipe card import: nothing was imported')
    return false
  }
  await writeFileAtomically(path, next)
  return true
}
