/** The user's recognised emotion sent with a message (`happy`, `sad`, …), from user_emotion_map keys. */
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
      title="用户语气 (user emotion)"
      value={props.value}
      onChange={(event) => props.onChange(event.currentTarget.value)}
    >
      <option value="">语气：无 (no emotion)</option>
      {props.keys.map((key) => (
        <option value={key}>{key}</option>
      ))}
    </select>
  )
}
