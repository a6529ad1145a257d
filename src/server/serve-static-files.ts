/**
 * The web page: files from `staticDir` (by default `dist/web` of the package), `index.html` for `/`.
 * Paths are resolved inside the folder only. When the page is not built, `/` says how to build it.
 */
import { existsSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { dirname, extname, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context } from 'hono'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

/** `dist/web` of the package this file belongs to (found by walking up to its package.json). */
export function findDefaultStaticDir(): string {
  let folder = dirname(fileURLToPath(import.meta.url))
  for (let depth = 0; depth < 6; depth++) {
    if (existsSync(join(folder, 'package.json'))) return join(folder, 'dist', 'web')
    folder = dirname(folder)
  }
  return resolve('dist', 'web')
}

const notBuiltPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>charpipe</title></head>
<body><h1>The web page is not built</h1>
<p>Run <code>npm run build</code> in the charpipe package, then reload. The API and WebSocket work without it.</p>
</body></html>`

/** A handler for GET requests outside the API: a file of `staticDir`, or a 404. */
export function createStaticFileHandler(staticDir: string) {
  const root = resolve(staticDir)
  return async (context: Context): Promise<Response> => {
    let path: string
    try {
      path = decodeURIComponent(new URL(context.req.url).pathname)
    } catch {
      return context.text('bad path', 400)
    }
    if (path.endsWith('/')) path += 'index.html'
    const file = resolve(root, `.${path}`)
    if (file !== root && !file.startsWith(root + sep)) return context.text('not found', 404)
    try {
      const info = await stat(file)
      if (!info.isFile()) return context.text('not found', 404)
      const body = await readFile(file)
      const type = contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream'
      return context.body(body, 200, { 'content-type': type, 'cache-control': 'no-cache' })
    } catch {
      if (path === '/index.html') return context.html(notBuiltPage, 404)
      return context.text('not found', 404)
    }
  }
}
