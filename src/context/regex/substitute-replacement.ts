/**
 * A rule's replacement template, parsed once, filled per match by the rules of JavaScript's
 * `String.prototype.replace`: `$$` a dollar, `$&` the match, `` $` `` / `$'` the text before / after
 * it, `$n` / `$nn` a group (two digits only when they name a group), `$<name>` a named group. The
 * regex processor fills it itself (instead of handing the template to the engine) so it can count
 * what every match adds and stop a rule that would grow the text without bound.
 */
type TemplatePart = string | { group: number } | { name: string } | { special: 'match' | 'before' | 'after' }

export interface ReplacementTemplate {
  readonly parts: readonly TemplatePart[]
  /** No `$` reference: every match gets the same text. */
  readonly literal: string | undefined
}

/** Parses `template` for a pattern with `groupCount` groups and the given named groups. */
export function parseReplacementTemplate(
  template: string,
  groupCount: number,
  hasNamedGroups: boolean,
): ReplacementTemplate {
  if (!template.includes('$')) return { parts: [template], literal: template }
  const parts: TemplatePart[] = []
  let text = ''
  const flush = () => {
    if (text) parts.push(text)
    text = ''
  }
  for (let index = 0; index < template.length; index++) {
    const character = template[index]!
    const next = template[index + 1]
    if (character !== '$' || next === undefined) {
      text += character
      continue
    }
    if (next === '$') {
      text += '$'
      index++
    } else if (next === '&' || next === '`' || next === "'") {
      flush()
      parts.push({ special: next === '&' ? 'match' : next === '`' ? 'before' : 'after' })
      index++
    } else if (next >= '0' && next <= '9') {
      const two = Number(template.slice(index + 1, index + 3))
      const one = Number(next)
      if (template.length > index + 2 && /\d/.test(template[index + 2]!) && two >= 1 && two <= groupCount) {
        flush()
        parts.push({ group: two })
        index += 2
      } else if (one >= 1 && one <= groupCount) {
        flush()
        parts.push({ group: one })
        index++
      } else {
        text += character
      }
    } else if (next === '<' && hasNamedGroups) {
      const close = template.indexOf('>', index + 2)
      if (close === -1) {
        text += character
        continue
      }
      flush()
      parts.push({ name: template.slice(index + 2, close) })
      index = close
    } else {
      text += character
    }
  }
  flush()
  return { parts, literal: undefined }
}

/** The arguments a replacer function receives: match, groups…, offset, input, named groups. */
export function fillReplacementTemplate(template: ReplacementTemplate, args: unknown[]): string {
  if (template.literal !== undefined) return template.literal
  const named = args.at(-1) as Record<string, string | null> | undefined
  const hasNamed = typeof named === 'object' && named !== null
  const input = args.at(hasNamed ? -2 : -1) as string
  const offset = args.at(hasNamed ? -3 : -2) as number
  const match = args[0] as string
  let result = ''
  for (const part of template.parts) {
    if (typeof part === 'string') result += part
    else if ('group' in part) result += (args[part.group] as string | null | undefined) ?? ''
    else if ('name' in part) result += (hasNamed ? named[part.name] : undefined) ?? ''
    else if (part.special === 'match') result += match
    else if (part.special === 'before') result += input.slice(0, offset)
    else result += input.slice(offset + match.length)
  }
  return result
}
