// Placeholder until this command lands; replaced by its implementation.
export const summary = '(not built yet)'
export const usage = 'charpipe kb'
export async function run(_args: string[]): Promise<number> {
  console.error('charpipe kb is not available in this build')
  return 1
}
