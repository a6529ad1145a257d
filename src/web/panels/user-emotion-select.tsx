/** The user's recognised emotion sent with a message (`happy`, `sad`, …), from user_emotion_map keys. */
import { translate } from '../lib/i18n.js'

export interface UserEmotionSelectProps {
  name: string
  keys: string[]
  value: string
  onChange(value: string): void
}

export function UserEmotionSelect(props: UserEmotionSelectProps) {
  return (
    <select
      name={props.name}
      title={translate('chat.userEmotion')}
      value={props.value}
      onChange={(event) => props.onChange(event.currentTarget.value)}
    >
      <option value="">{translate('chat.noEmotion')}</option>
      {props.keys.map((key) => (
        <option value={key}>{key}</option>
      ))}
    </select>
  )
}
