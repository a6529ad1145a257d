/**
 * The value a plain-object table gives `key`, own keys only. A key from outside (a request body, a
 * model's text or stream, a card, a config file) such as `toString`, `constructor` or `__proto__`
 * would otherwise find a member of `Object.prototype`: a function where a value was expected.
 */
export function lookUpOwn<Value>(table: Readonly<Record<string, Value>>, key: string): Value | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}
