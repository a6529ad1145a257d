/**
 * A "billion laughs" YAML document: six anchors, each a list of ten aliases of the one before, so
 * the last expands to a million scalars from a few hundred bytes of text.
 */
export function makeYamlAliasBomb(): string {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
  const names = ['a', 'b', 'c', 'd', 'e', 'f']
  for (const [index, name] of names.slice(1).entries())
    lines.push(`${name}: &${name} [${Array(10).fill(`*${names[index]}`).join(', ')}]`)
  return `${lines.join('\n')}\n`
}
