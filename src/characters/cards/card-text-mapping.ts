/**
 * How a card's prompt texts sit in charpipe's character block, in both directions, so an exported
 * card gives back what was imported.
 *
 * - `description` and `personality` become one persona: the description, then a line
 *   `{{char}}'s personality: …` (the words SillyTavern puts before it in the prompt). The persona is
 *   what the model reads, so it holds both; export splits at the last such line.
 * - `system_prompt` becomes the assembler's system prompt template. SillyTavern's `{{original}}` (the
 *   prompt the card replaces) is charpipe's own name, persona and scenario part; a card prompt
 *   without it gets it appended, since in SillyTavern the character's description is sent besides
 *   the card's prompt.
 * - `post_history_instructions` becomes a system message at depth 0 (after the newest history
 *   message); its `{{original}}` (the app's own instructions) is empty in charpipe.
 */
const personalityMarker = "{{char}}'s personality: "
export const originalMacro = '{{original}}'
const appendedOriginal = `\n\n${originalMacro}`

export function joinPersona(description: string, personality: string): string {
  if (!personality.trim()) return description
  return description
    ? `${description}\n\n${personalityMarker}${personality}`
    : `${personalityMarker}${personality}`
}

export function splitPersona(persona: string): { description: string; personality: string } {
  const at = persona.lastIndexOf(`\n\n${personalityMarker}`)
  if (at >= 0)
    return {
      description: persona.slice(0, at),
      personality: persona.slice(at + 2 + personalityMarker.length),
    }
  if (persona.startsWith(personalityMarker))
    return { description: '', personality: persona.slice(personalityMarker.length) }
  return { description: persona, personality: '' }
}

export function readCardSystemPrompt(systemPrompt: string): string {
  if (!systemPrompt.trim()) return ''
  return systemPrompt.includes(originalMacro) ? systemPrompt : `${systemPrompt}${appendedOriginal}`
}

export function writeCardSystemPrompt(template: string): string {
  const last = template.lastIndexOf(originalMacro)
  if (template.endsWith(appendedOriginal) && template.indexOf(originalMacro) === last)
    return template.slice(0, -appendedOriginal.length)
  return template
}

export function readPostHistoryInstructions(text: string): string {
  return text.replaceAll(originalMacro, '').trim()
}
