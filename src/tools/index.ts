export { addToolPrompt } from './add-tool-prompt.js'
export { parseToolCallText, renderToolPrompt } from './tool-call-text.js'
export { createToolRegistry, type ToolRegistry } from './tool-registry.js'
export type * from './types.js'
