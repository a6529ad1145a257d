/**
 * What images held for a vision describer cost after their turns: 20 turns over one WebSocket, each
 * with a distinct 4 MB image described by the vision model first (mock model server), then the heap
 * after a full collection. A request must not outlive its turn through a signal that lives longer
 * (the socket's). Run: `npm run bench -- image-heap`.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import WebSocket from 'ws'
import { createCharpipe } from '../src/engine/index.js'
import { startServer } from '../src/server/index.js'
import { createLogger } from '../src/shared/logger.js'
import { startMockModelServer } from '../src/testing/index.js'

setFlagsFromString('--expose_gc')
const collect = runInNewContext('gc') as () => void
const heapMb = () => {
  collect()
  collect()
  return Math.round(process.memoryUsage().heapUsed / 1e6)
}

const turns = Number(process.env.TURNS ?? 20)
const folder = await mkdtemp(join(tmpdir(), 'charpipe-image-heap-'))
const model = await startMockModelServer({ respond: () => ({ text: '一张图' }) })
const configPath = join(folder, 'config.yaml')
await writeFile(
  configPath,
  [
    'llm: { provider: custom, base_url: "' +
      `${model.url}/v1` +
      '", model: chat-model, max_retries: 0, vision: false,',
    '  vision_describer: { provider: custom, base_url: "' + `${model.url}/v1` + '", model: vision-model } }',
    'memory: { enabled: false }',
    `storage: { sqlite_path: "${join(folder, 'charpipe.db')}" }`,
    'server: { max_body_bytes: 67108864 }',
  ].join('\n'),
)
const logger = createLogger({ level: 'silent' })
const started = await startServer({
  configPath,
  port: 0,
  watchConfig: false,
  logger,
  createCharpipe: (config) => createCharpipe(config, { logger }),
})
const socket = new WebSocket(`${started.url.replace('http', 'ws')}/ws`, { maxPayload: 128 * 1024 * 1024 })
await new Promise((resolve) => socket.once('open', resolve))
const before = heapMb()
for (let index = 0; index < turns; index++) {
  const image = `data:image/png;base64,${randomBytes(3 * 1024 * 1024).toString('base64')}`
  const done = new Promise<void>((resolve) => {
    const onMessage = (data: Buffer) => {
      if (JSON.parse(data.toString()).type !== 'llm_done') return
      socket.off('message', onMessage)
      resolve()
    }
    socket.on('message', onMessage)
  })
  socket.send(JSON.stringify({ type: 'user_input', session: `s${index}`, text: '看', images: [image] }))
  await done
  model.requests.length = 0
}
const after = heapMb()
console.table([{ turns, image_mb: 4, heap_before_mb: before, heap_after_mb: after, held_mb: after - before }])
socket.close()
await started.close()
await model.close()
await rm(folder, { recursive: true, force: true })
