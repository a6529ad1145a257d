/**
 * What a remote MCP address answered reaches the admin API (`/api/tools`) and the log only as its
 * HTTP status: the MCP SDK puts the body of a page it reached into its error message ("Error POSTing
 * to endpoint: <the page>"), and an admin could otherwise read any page the server can reach by
 * naming it as an MCP server. An MCP server's own protocol errors are kept.
 */
const postFailure = /Error POSTing to endpoint/

/** `error` with the page's body taken out of its message, when it carries one. */
export function hideAnsweredPage(error: unknown): unknown {
  if (!(error instanceof Error) || !postFailure.test(error.message)) return error
  const code = (error as { code?: unknown }).code
  const status = typeof code === 'number' ? code : /\(HTTP (\d{3})\)/.exec(error.message)?.[1]
  return new Error(
    status === undefined
      ? 'the address did not answer as an MCP server'
      : `the address answered HTTP ${status}, not as an MCP server`,
    { cause: error },
  )
}
