/**
 * The `server` section: HTTP/WebSocket listener, tokens, limits and shutdown.
 */
import * as z from 'zod'
import { secret, timeoutMs } from './fields.js'

/** How `/v1/chat/completions` and `/v1/responses` serve a named client (PROTOCOL.md, fourth wave). */
export const clientProfileSchema = z
  .strictObject({
    character: z
      .string()
      .max(200)
      .default('')
      .describe("The character this client talks to (id or name); empty: from the request's `model`."),
    session: z
      .enum(['auto', 'client', 'user', 'header'])
      .default('auto')
      .describe(
        "Which session a request is: `auto` (the `user` field or X-Session-Id), `client` (one session for the client, named `openai`), `user` (the body's `user` field), `header` (X-Session-Id).",
      ),
    persona: z
      .enum(['client', 'server'])
      .default('client')
      .describe(
        "`client`: the request's system messages replace the character's persona; `server`: the character's whole prompt is used and the client's system messages are dropped.",
      ),
    history: z
      .enum(['client', 'server'])
      .default('client')
      .describe(
        "`client`: the request's earlier turns replace the stored history; `server`: only the last user message is new input, the stored history and long-term memory are used and the turn is stored.",
      ),
    emotion: z
      .enum(['field', 'act', 'bracket', 'none'])
      .default('field')
      .describe(
        "How the emotion reaches the client: `field` (an extra `emotion` field), `act` (AIRI's inline `<|ACT {...}|>` tokens), `bracket` (Open-LLM-VTuber's inline `[name]`), `none`.",
      ),
    emotion_names: z
      .record(z.string().min(1).max(100), z.string().min(1).max(100))
      .default({})
      .describe("The client's name for each of the character's emotion labels (`开心: joy`)."),
  })
  .prefault({})
  .describe(
    'How the OpenAI-compatible endpoints treat this client (front ends that set only a base URL, a key and a model).',
  )

/** A named client: the holder of `token` is this client, with chat scope only. */
export const serverClientSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _ (at most 64)')
      .describe("The client's name: its sessions' namespace, its limits and the page's client list."),
    token: z
      .string()
      .min(16, 'a client token needs at least 16 characters')
      .max(1000)
      .describe(
        'The bearer token this client sends (`Authorization: Bearer …`); chat scope only. `${ENV_VAR}` is replaced from the environment.',
      ),
    follow: z
      .array(z.string().min(1).max(64))
      .max(100)
      .default([])
      .describe(
        'Connector names (or `*`) whose sessions this client may follow (open, receive events) and send `activity` and `interrupt` to.',
      ),
    profile: clientProfileSchema,
  })
  .describe('A front end with its own token, sessions, limits and profile.')

export const serverSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1').describe('Interface to listen on.'),
    port: z.int().min(0).max(65535).default(8080).describe('TCP port (0 picks a free one).'),
    token: secret(
      'Bearer token required by the API, WebSocket and admin calls when set. Required on a non-loopback host. With server.admin_token set, it grants chat only (WebSocket, /api/chat, /v1/*, reading and observing sessions).',
    ),
    admin_token: secret(
      'Bearer token for the admin surface (config, doctor, memory and knowledge, session deletion, preview, tools, characters, metrics); it also grants chat. Empty: server.token grants both.',
    ),
    clients: z
      .array(serverClientSchema)
      .max(1000)
      .default([])
      .superRefine((clients, context) => {
        const names = new Set<string>()
        const tokens = new Set<string>()
        clients.forEach((client, index) => {
          if (names.has(client.name))
            context.addIssue({
              code: 'custom',
              path: [index, 'name'],
              message: `client "${client.name}" is named twice`,
            })
          if (tokens.has(client.token))
            context.addIssue({
              code: 'custom',
              path: [index, 'token'],
              message: 'two clients share one token',
            })
          names.add(client.name)
          tokens.add(client.token)
        })
      })
      .describe(
        'Named clients (file-only): each token is one front end, with chat scope, its own sessions and limits, and a profile for the OpenAI-compatible endpoints.',
      ),
    max_body_bytes: z
      .int()
      .min(4096)
      .max(1024 * 1024 * 1024)
      .default(10 * 1024 * 1024)
      .describe(
        'Largest accepted HTTP body or WebSocket frame (4 KiB to 1 GiB: a smaller limit would refuse the very request that raises it).',
      ),
    allowed_hosts: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Host names the server answers to besides localhost, IP addresses and server.host (DNS rebinding guard). `.example.com` also matches its subdomains; `*` turns the check off.',
      ),
    allowed_origins: z
      .array(
        z
          .string()
          .regex(
            /^https?:\/\/[^\s/?#]+$/i,
            'expected an origin such as https://app.example.com (scheme and host, no path or trailing slash)',
          ),
      )
      .default([])
      .describe(
        "Web origins (`https://app.example.com`) besides the server's own whose pages may call the API and open the WebSocket; only they get CORS headers.",
      ),
    trusted_proxies: z
      .array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]))
      .max(1000)
      .default([])
      .describe(
        'Addresses or CIDR ranges (`10.0.0.0/8`) of reverse proxies in front of the server whose `X-Forwarded-For` is believed: behind them the turn limits of /api/chat and /v1/* count per client address (the first address from the right of the header that is not a trusted proxy). Empty: the header is ignored and the socket peer is the client.',
      ),
    limits: z
      .strictObject({
        frames_per_second: z
          .int()
          .min(1)
          .max(100_000)
          .default(50)
          .describe(
            'Most WebSocket frames one connection may send per second (a burst of twice this is allowed); frames past it are dropped with an error frame.',
          ),
        turns_per_minute: z
          .int()
          .min(1)
          .max(100_000)
          .default(120)
          .describe(
            'Most turns (model requests) one WebSocket connection, or one session of one client address of /api/chat and /v1/* (see trusted_proxies), may start per minute; one address may start ten times this across its sessions. The turns answering the audience frames of a connection, or the audience requests of one HTTP origin (see audience_requests_per_minute), count against it when they start.',
          ),
        concurrent_turns: z
          .int()
          .min(1)
          .max(10_000)
          .default(8)
          .describe(
            'Most turns running at once for one WebSocket connection, or one session of one HTTP client address; one address may run ten times this across its sessions.',
          ),
        audience_requests_per_minute: z
          .int()
          .min(1)
          .max(100_000)
          .default(600)
          .describe(
            'Most `POST /api/sessions/:id/audience`, `/observe` and `/open` requests, together, one origin (the admin token, a named client or the chat token, at one client address: see trusted_proxies) may send per minute, answered 429 `rate_limited` past it. A request bound only: the turns answering its lines count against `turns_per_minute` when they start.',
          ),
        live_sessions: z
          .int()
          .min(1)
          .max(10_000)
          .default(32)
          .describe(
            'Most sessions one WebSocket connection, or one origin of `POST /api/sessions/:id/audience` (see audience_requests_per_minute), may keep live for turns the server starts by itself (idle and audience turns); following more is refused with an error frame, lines for more with 429 `rate_limited`. A session stops counting when it stops being live: the connection closes, or nothing more is to start there.',
          ),
        v1_input_items: z
          .int()
          .min(1)
          .max(1_000_000)
          .default(2000)
          .describe(
            'Most `messages` of one `/v1/chat/completions` request, or `input` items of one `/v1/responses` request; a request with more is refused with 400 before any work.',
          ),
        v1_instructions_chars: z
          .int()
          .min(1)
          .max(100_000_000)
          .default(256 * 1024)
          .describe(
            "Most characters of the client's instructions in one `/v1` request: `instructions` of `/v1/responses`, the `system` and `developer` messages of `/v1/chat/completions` together; more is refused with 400 before any work.",
          ),
        v1_tools: z
          .int()
          .min(0)
          .max(10_000)
          .default(128)
          .describe('Most `tools` of one `/v1` request; more is refused with 400 before any work.'),
        v1_tool_schema_bytes: z
          .int()
          .min(64)
          .max(100_000_000)
          .default(64 * 1024)
          .describe(
            "Most bytes of one tool's `parameters` (its JSON schema, as JSON) in a `/v1` request; a larger one is refused with 400 before any work.",
          ),
        buffered_bytes_total: z
          .int()
          .min(64 * 1024)
          .max(64 * 1024 * 1024 * 1024)
          .default(256 * 1024 * 1024)
          .describe(
            "Most bytes waiting for all slow readers together, WebSocket clients and streamed HTTP answers (`/api/chat`, `/v1/*` with `stream: true`): what waits in the server, the sockets' unsent output and an estimate of the objects around it. Past it, the readers that lag most (hold the most) are cut first, as at `ws_max_buffered_bytes` (turns interrupted and stored, socket closed with code 1008, stream dropped), until the total is under it again. Checked at every event, so readers are cut while the turns that fill them still run.",
          ),
      })
      .prefault({})
      .describe(
        'Per-connection and per-client limits, so a flood of frames or requests does not become as many upstream calls.',
      ),
    ws_max_buffered_bytes: z
      .int()
      .min(64 * 1024)
      .max(1024 * 1024 * 1024)
      .default(8 * 1024 * 1024)
      .describe(
        'Most bytes of events waiting for one WebSocket client, or one streamed HTTP answer (`/api/chat`, `/v1/*` with `stream: true`), that does not read. While a WebSocket client lags, chunks are merged; past this, its turns are interrupted (and stored) and the socket is closed with code 1008, or the stream dropped.',
      ),
    shutdown_grace_ms: timeoutMs()
      .default(10_000)
      .describe(
        'SIGTERM/SIGINT: longest wait for running turns to end and be stored and the stores to close; then the process exits, logging the sessions it could not finish.',
      ),
  })
  .describe('The HTTP/WebSocket server (`charpipe serve`).')
