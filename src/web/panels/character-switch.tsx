/** The header's character switcher: the character the chat speaks to and the panels edit, with its avatar. */
import { translate } from '../lib/i18n.js'
import type { PageCharacter } from '../lib/list-page-characters.js'
import { useCharacterPicture } from '../lib/use-character-picture.js'

export interface CharacterSwitchProps {
  characters: PageCharacter[]
  selected: PageCharacter | undefined
  onSelect(id: string): void
}

/** The character's picture (its avatar URL or data URI, or the one the server keeps), else the initial. */
export function CharacterAvatar(props: { character: PageCharacter | undefined }) {
  const picture = useCharacterPicture(props.character)
  if (picture) {
    return <img class="character-avatar" src={picture} alt="" data-character-avatar />
  }
  return (
    <span class="character-avatar initial" data-character-avatar>
      {Array.from(props.character?.name ?? '?')[0] ?? '?'}
    </span>
  )
}

export function CharacterSwitch(props: CharacterSwitchProps) {
  if (props.characters.length === 0) return null
  return (
    <label class="character-switch">
      <CharacterAvatar character={props.selected} />
      <span class="visually-hidden">{translate('characters.switch')}</span>
      <select
        data-character-switch
        aria-label={translate('characters.switch')}
        value={props.selected?.id ?? ''}
        onChange={(event) => props.onSelect(event.currentTarget.value)}
      >
        {props.characters.map((character) => (
          <option value={character.id}>
            {character.name === character.id ? character.name : `${character.name} (${character.id})`}
          </option>
        ))}
      </select>
    </label>
  )
}
