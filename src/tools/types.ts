/**
 * The tool contract (SPEC R1.4, seeds 002 and 004): a name, a description, a JSON Schema of the
 * arguments, and one function. The engine offers tools to the model natively (`tools`) or, for models
 * without function calling, describes them in the system prompt and parses calls from the reply.
 */

export interface ToolExecuteOptions {
  /** Aborted when the turn is interrupted; long-running tools should stop. */
  signal: AbortSignal
  /** Session the turn belongs to. */
  session: string
  /** Turn id. */
  turn: string
}

export interface Tool<Arguments = Record<string, unknown>> {
  /** Letters, digits, `_` and `-` (the common denominator of the providers' rules). */
  name: string
  description: string
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>
  /**
   * Returns any JSON-serialisable value, or `createToolResultContent(parts)` for text with images;
   * a thrown error is given back to the model as the result.
   */
  execute(args: Arguments, options: ToolExecuteOptions): Promise<unknown> | unknown
}

/** What running one call gave: the value, or the error text the model sees instead. */
export interface ToolRunResult {
  id: string
  name: string
  result: unknown
  isError: boolean
}

/**
 * Where tools come from besides the program's own list (MCP servers): a source's tools may change
 * while the engine runs, and some may still be on their way when a turn starts.
 */
export interface ToolSource {
  /** The tools it offers now. */
  list(): readonly Tool[]
  /** Resolves once tools still being fetched are known, or their wait is over, or `signal` aborts. */
  ready(signal: AbortSignal): Promise<void>
}
