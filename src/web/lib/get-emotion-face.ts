/** The avatar-like face for an emotion label, through the character's aliases (`happy` → 开心). */
import { translateEmotionLabel } from '../../shared/language/emotion-labels.js'

const faces: Record<string, string> = {
  开心: '😄',
  平静: '🙂',
  难过: '😢',
  生气: '😠',
  惊讶: '😮',
  害怕: '😨',
  害羞: '😳',
  愉快: '😊',
  厌恶: '🤢',
}

export function getEmotionFace(emotion: string | undefined, aliases: Record<string, string> = {}): string {
  if (!emotion) return '🙂'
  const label = aliases[emotion] ?? aliases[emotion.toLowerCase()] ?? translateEmotionLabel(emotion, 'zh')
  return faces[label] ?? '🤔'
}
