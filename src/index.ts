/**
 * charpipe: the brain stage of an AI character. The bare import stays light; the server, testing
 * helpers and optional stores live behind their own subpaths.
 */
export * from './config/index.js'
export * from './shared/index.js'
