/**
 * AIRI's expression names, and a character's emotion labels mapped to them by meaning: AIRI's stage
 * sets the avatar's expression only for its own names (`happy`, `sad`, …), so a label such as 开心
 * or `joy` must reach it as `happy`. Labels of no known meaning become `neutral`, AIRI's resting face.
 */

/** The emotion names AIRI's stage knows (its `Emotion` values). */
export const airiEmotionNames = [
  'happy',
  'sad',
  'angry',
  'think',
  'surprised',
  'awkward',
  'question',
  'curious',
  'neutral',
  'cool',
] as const

export type AiriEmotionName = (typeof airiEmotionNames)[number]

// Words of each meaning, Chinese and English (lowercase): the default labels, their aliases and the
// labels character cards commonly use.
const wordsByName: Record<AiriEmotionName, readonly string[]> = {
  happy: [
    '开心',
    '高兴',
    '快乐',
    '喜悦',
    '兴奋',
    '微笑',
    '笑',
    'happy',
    'joy',
    'joyful',
    'excited',
    'glad',
    'smile',
    'love',
    'amused',
    'playful',
  ],
  sad: [
    '难过',
    '伤心',
    '悲伤',
    '失落',
    '哭',
    '委屈',
    'sad',
    'sadness',
    'sorrow',
    'crying',
    'upset',
    'disappointed',
    'lonely',
  ],
  angry: [
    '生气',
    '愤怒',
    '恼火',
    '不满',
    'angry',
    'anger',
    'mad',
    'annoyed',
    'frustrated',
    'disgust',
    'disgusted',
  ],
  think: ['思考', '沉思', '认真', 'think', 'thinking', 'thoughtful', 'pondering', 'serious'],
  surprised: [
    '惊讶',
    '吃惊',
    '震惊',
    '害怕',
    '恐惧',
    '慌张',
    'surprised',
    'surprise',
    'shocked',
    'astonished',
    'afraid',
    'fear',
    'scared',
    'worried',
    'anxious',
    'nervous',
  ],
  awkward: ['尴尬', '害羞', '羞涩', '无奈', 'awkward', 'shy', 'embarrassed', 'blush', 'flustered'],
  question: ['疑惑', '困惑', '不解', 'question', 'confused', 'puzzled', 'doubt'],
  curious: ['好奇', 'curious', 'curiosity', 'interested', 'intrigued'],
  neutral: ['平静', '正常', '平常', '冷静', 'neutral', 'calm', 'normal', 'idle', 'relaxed'],
  cool: ['酷', '得意', '自信', '骄傲', 'cool', 'proud', 'confident', 'smug', 'determined'],
}

const nameByWord = new Map<string, AiriEmotionName>(
  Object.entries(wordsByName).flatMap(([name, words]) =>
    words.map((word) => [word, name as AiriEmotionName] as const),
  ),
)

/** AIRI's name for a character's emotion label, by meaning; `neutral` when its meaning is unknown. */
export function convertEmotionToAiri(label: string): AiriEmotionName {
  return nameByWord.get(label.trim().toLowerCase()) ?? 'neutral'
}
