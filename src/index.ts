/**
 * charpipe: the brain stage of an AI character. The bare import stays light; the server, testing
 * helpers and optional stores live behind their own subpaths.
 */
export * from './config/index.js'
export * from './context/index.js'
export * from './engine/index.js'
export * from './memory/index.js'
export * from './providers/index.js'
export * from './reply/index.js'
export * from './shared/index.js'
export * from './tools/index.js'
