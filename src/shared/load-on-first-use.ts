/**
 * The provider SDKs are large (the Anthropic SDK alone is over a thousand modules): a provider
 * imports its SDK when its first request needs it, so `import('charpipe')` and a program that only
 * uses the mock or another provider do not pay for it.
 */

/** Returns a getter that runs `load` once, on its first call, and hands out the same promise after. */
export function loadOnFirstUse<Value>(load: () => Promise<Value>): () => Promise<Value> {
  let loaded: Promise<Value> | undefined
  return () => {
    loaded ??= load()
    return loaded
  }
}
