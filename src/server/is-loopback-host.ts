/** Whether a listen address is only reachable from this machine (a token is optional there). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(bare) ||
    bare === '::ffff:127.0.0.1'
  )
}
