/** A set that forgets its oldest entries past `limit`: seen message ids, sent message ids. */
export interface BoundedSet {
  add(value: string): void
  has(value: string): boolean
}

export function createBoundedSet(limit: number): BoundedSet {
  const values = new Set<string>()
  return {
    add(value) {
      values.delete(value)
      values.add(value)
      if (values.size > limit) values.delete(values.values().next().value as string)
    },
    has: (value) => values.has(value),
  }
}
