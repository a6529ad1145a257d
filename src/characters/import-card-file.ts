/** A card file of `characters_dir` read as a character block (the card importer's work). */
import { BadRequestError } from '../shared/errors.js'
import type { ImportCardFile } from './read-characters-dir.js'

export const importCardFile: ImportCardFile = () => {
  throw new BadRequestError('character card files are not readable yet')
}
