/** The header's character switcher: the character the chat speaks to and the panels edit, with its avatar. */
import { translate } from '../lib/i18n.js'
import type { PageCharacter } from '../lib/list-page-characters.js'

export interface CharacterSwitchProps {
  characters: PageCharacter[]
  selected: PageCharacter | undefined
  onSelect(id: string): void
}

/** The avatar as an image when it is one the page can show (a URL or a data URI), else the initial. */
export function CharacterAvatar(props: { character: PageCharacter | undefined }) {
  const avatar = props.character?.avatar ?? ''
  if (/^(https?:|data:image\/)/i.test(avatar)) {
    return <img class="character-avatar" src={avatar} alt="" data-character-avatar />
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
