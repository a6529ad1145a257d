/**
 * The config.yaml schema: the single source of truth for its fields, defaults and descriptions.
 * The loader, the admin API, the web page's forms, `config.schema.json` and docs/config.md all read
 * this one declaration. Sections use `.prefault({})` so a missing section still gets every inner
 * default; objects are strict so a misspelt key is reported instead of silently ignored.
 */
import * as z from 'zod'

/** A timeout in milliseconds: at least 100 ms (less cannot be met), at most one hour. */
const timeoutMs = () => z.int().min(100).max(3_600_000)

const secret = (description: string) =>
  z.string().default('').describe(`${description} \`\${ENV_VAR}\` is replaced from the environment.`)

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
            'Most turns (model requests) one WebSocket connection, or one client of /api/chat and /v1/* (its token and address), may start per minute.',
          ),
        concurrent_turns: z
          .int()
          .min(1)
          .max(10_000)
          .default(8)
          .describe('Most turns running at once for one WebSocket connection, or one HTTP client.'),
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
        'Most bytes of events waiting for one WebSocket client that does not read. While a client lags, chunks are merged; past this, its turns are interrupted (and stored) and the socket is closed with code 1008.',
      ),
    shutdown_grace_ms: timeoutMs()
      .default(10_000)
      .describe(
        'SIGTERM/SIGINT: longest wait for running turns to end and be stored and the stores to close; then the process exits, logging the sessions it could not finish.',
      ),
  })
  .describe('The HTTP/WebSocket server (`charpipe serve`).')

export const fallbackProviderSchema = z.strictObject({
  provider: z.string().min(1).describe('Registry name, or any name with base_url (OpenAI-compatible).'),
  model: z.string().default('').describe("Model id; empty: the provider's default."),
  base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
})

export const processorSettingsSchema = z
  .looseObject({
    enabled: z.boolean().optional().describe('Run this processor.'),
    priority: z.number().min(-1_000_000).max(1_000_000).optional().describe('Lower runs first.'),
  })
  .describe("A processor's settings: `enabled`, `priority` and its own options (see its configFields).")

const processorMapSchema = z.record(z.string(), processorSettingsSchema).default({})

export const defaultVisionDescriberPrompt =
  '请用一两句简短的中文描述这张图片：画面里有什么、在做什么、有没有文字。只写描述，不要评论，不要提问。'

export const visionDescriberSchema = z.strictObject({
  provider: z
    .string()
    .min(1)
    .describe(
      'Registry name of a provider with a vision model (openai, anthropic, doubao, …) or any name with base_url.',
    ),
  model: z.string().default('').describe("Vision model id; empty: the provider's default."),
  base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
  prompt: z
    .string()
    .min(1)
    .default(defaultVisionDescriberPrompt)
    .describe('What the vision model is asked about each image.'),
  timeout_ms: timeoutMs().default(30_000).describe('No description by then: use a placeholder.'),
})

export const transcriberSchema = z.strictObject({
  provider: z
    .string()
    .min(1)
    .default('openai')
    .describe(
      'Registry name of a provider with an OpenAI-compatible /audio/transcriptions endpoint, or any name with base_url.',
    ),
  model: z.string().min(1).default('whisper-1').describe('Transcription model id.'),
  base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
  language: z
    .string()
    .max(20)
    .default('')
    .describe('Language of the audio (ISO 639-1, e.g. zh); empty: the model detects it.'),
  timeout_ms: timeoutMs().default(60_000).describe('No transcript by then: use a placeholder.'),
})

export const llmSchema = z
  .strictObject({
    provider: z
      .string()
      .min(1)
      .default('mock')
      .describe(
        'Registry name (deepseek, moonshot, doubao, ollama, openai, anthropic, openclaw, custom, mock) or any name with base_url.',
      ),
    model: z.string().default('').describe("Model id; empty: the provider's default."),
    base_url: z.string().default('').describe("API base URL; empty: the provider's default."),
    api_key: secret('API key.'),
    temperature: z.number().min(0).max(2).default(0.8).describe('Sampling temperature.'),
    max_tokens: z
      .int()
      .min(1)
      .max(1_000_000)
      .default(1024)
      .describe('Most tokens the model may write in one reply.'),
    context_window: z
      .int()
      .min(0)
      .max(100_000_000)
      .default(0)
      .describe("The model's context window in tokens; 0: the registry's value for the provider."),
    timeout_ms: timeoutMs().default(120_000).describe('No first chunk by then: abort the request.'),
    stall_timeout_ms: timeoutMs()
      .default(30_000)
      .describe('No chunk for this long in the middle of a stream: abort it.'),
    max_retries: z
      .int()
      .min(0)
      .max(10)
      .default(2)
      .describe('Retries before the first chunk (network, 408, 409, 429, 5xx).'),
    function_calling: z
      .boolean()
      .default(true)
      .describe('The model supports native tool calls; off: tools are described in the system prompt.'),
    prompt_cache: z
      .boolean()
      .default(true)
      .describe(
        'Anthropic: mark the system prompt and the end of the history as prompt-cache breakpoints, so ' +
          'later turns read them from the cache. (OpenAI-compatible providers cache prefixes by themselves.)',
      ),
    max_tool_steps: z
      .int()
      .min(1)
      .max(50)
      .default(5)
      .describe('Most model calls in one turn while tools are being called.'),
    vision: z.boolean().default(false).describe('The model accepts images.'),
    vision_describer: visionDescriberSchema
      .nullable()
      .default(null)
      .describe(
        'A vision model that describes images as [图片:描述] when `vision` is false; null: a placeholder says the model cannot see them.',
      ),
    transcriber: transcriberSchema
      .nullable()
      .default(null)
      .describe(
        'A speech-to-text endpoint that turns audio attachments (voice messages, the sound of a video) into [语音:转写]; null: a placeholder says the audio was not transcribed.',
      ),
    fallbacks: z
      .array(fallbackProviderSchema)
      .default([])
      .describe('Providers tried in order when this one fails before its first chunk.'),
    processors: processorMapSchema.describe(
      "Model-level processor defaults; the character's pipeline.processors entry wins per id.",
    ),
  })
  .describe('The language model.')

export const openclawSchema = z
  .strictObject({
    url: z.string().min(1).default('http://localhost:18789').describe('Gateway base URL.'),
    token: secret('Gateway bearer token.'),
    session_key: z.string().default('main').describe('Sent as x-openclaw-session-key.'),
    agent_id: z
      .string()
      .default('')
      .describe('Sent as x-openclaw-agent-id when set; empty: the gateway default agent.'),
    timeout_ms: timeoutMs().default(120_000).describe('No first chunk by then: abort the request.'),
  })
  .describe('An OpenClaw gateway (provider `openclaw`).')

export const injectedMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']).describe('Who says it.'),
  content: z.string().describe('What is said.'),
})

export const replyFormatSchema = z
  .enum(['json', 'prefix', 'auto', 'plain'])
  .describe(
    'json: {"emotion","text"}; prefix: {"emotion"} then plain text; auto: either; plain: no emotion parsing.',
  )

export const lorebookEntrySchema = z
  .strictObject({
    name: z.string().default('').describe('A label for people; not sent to the model.'),
    keys: z.array(z.string().min(1)).default([]).describe('Words (or /regex/flags) that trigger the entry.'),
    secondary_keys: z
      .array(z.string().min(1))
      .default([])
      .describe('With selective: one of these must appear too.'),
    selective: z.boolean().default(false).describe('Needs a key and a secondary key.'),
    constant: z.boolean().default(false).describe('Always injected, keys or not.'),
    case_sensitive: z.boolean().default(false).describe('Keys match with case.'),
    enabled: z.boolean().default(true).describe('False: never injected.'),
    content: z.string().describe('What is injected when the entry triggers.'),
    insertion_order: z
      .int()
      .default(100)
      .describe('Entries with a higher order are kept first when the budget is short, and placed later.'),
    position: z
      .enum(['before_char', 'after_char', 'depth'])
      .default('before_char')
      .describe('Before or after the persona in the system prompt, or inside the history at depth.'),
    depth: z
      .int()
      .min(0)
      .max(1000)
      .default(4)
      .describe('With position depth: messages from the end of the history.'),
    role: z
      .enum(['system', 'user', 'assistant'])
      .default('system')
      .describe('With position depth: who says it.'),
    card: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Fields of the card's entry that charpipe does not use, written back on export."),
  })
  .describe('A keyword-triggered lorebook (world info) entry.')

export const lorebookSchema = z
  .strictObject({
    scan_depth: z
      .int()
      .min(0)
      .max(1000)
      .default(4)
      .describe('How many of the newest messages (the input included) are scanned for keys.'),
    token_budget: z
      .int()
      .min(0)
      .max(1_000_000)
      .default(1024)
      .describe('Most tokens of entries injected in one turn.'),
    recursive: z.boolean().default(false).describe('Injected entries may trigger further entries.'),
    entries: z.array(lorebookEntrySchema).default([]).describe('The entries.'),
    card: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Fields of the card's character_book that charpipe does not use, written back on export."),
  })
  .describe("The character's lorebook: entries injected when their keys appear in the conversation.")

export const characterSchema = z
  .strictObject({
    id: z
      .string()
      .max(200)
      .default('')
      .describe(
        "The key the character's history and memory are stored under; empty: the name. Renaming through the page pins it to the old name, so conversations are kept.",
      ),
    name: z.string().default('小助手').describe("The character's name ({{char}})."),
    user_name: z.string().default('用户').describe("The user's name ({{user}})."),
    persona: z
      .string()
      .default('')
      .describe('Who the character is: personality, background, manner of speech.'),
    reply_format: replyFormatSchema.default('auto'),
    default_emotion: z.string().min(1).default('平静').describe('Emotion when the model gives none.'),
    emotions: z
      .array(z.string().min(1))
      .default(['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞'])
      .describe('Emotion labels the model may use.'),
    inline_emotion_tags: z
      .boolean()
      .default(false)
      .describe('Parse inline tags such as [开心] or <|ACT {"emotion":…}|> inside the text.'),
    emotion_aliases: z
      .record(z.string(), z.string())
      .default({
        happy: '开心',
        joy: '开心',
        neutral: '平静',
        calm: '平静',
        sad: '难过',
        angry: '生气',
        surprised: '惊讶',
        fear: '害怕',
        shy: '害羞',
      })
      .describe('Maps labels a model may write instead (happy) to configured ones (开心).'),
    user_emotion_map: z
      .record(z.string(), z.string())
      .default({
        happy: '愉快',
        sad: '难过',
        angry: '生气',
        surprised: '惊讶',
        fearful: '害怕',
        disgusted: '厌恶',
      })
      .describe('Maps the speech recogniser emotion to the words appended as [用户语气：…].'),
    injected_history: z
      .array(injectedMessageSchema)
      .default([])
      .describe('Example dialogue placed after the system prompt and before the history.'),
    scenario: z
      .string()
      .default('')
      .describe('The situation the conversation takes place in; shown after the persona ({{scenario}}).'),
    greeting: z
      .string()
      .default('')
      .describe(
        "The character's first message: a new session opens with it as a stored assistant reply (a card's first_mes); empty: the user speaks first.",
      ),
    alternate_greetings: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Other first messages; a new session opens with one of greeting and these, chosen at random.',
      ),
    avatar: z
      .string()
      .default('')
      .describe("Picture of the character: an asset path, an http(s) URL or a data URI (a card's image)."),
    lorebook: lorebookSchema.prefault({}),
    pipeline: z
      .strictObject({
        processors: processorMapSchema.describe(
          'Per processor id: {enabled, priority, ...options}, over the top-level pipeline.processors entry of the same id.',
        ),
      })
      .optional()
      .describe("This character's own processor settings (characters that need other rules than the rest)."),
    card: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'Fields of an imported character card that charpipe does not use (creator, tags, extensions, …), written back on export.',
      ),
  })
  .describe('The character.')

/** A character's id as it appears in URLs, `model` names and file names. */
export const characterIdKeySchema = z
  .string()
  .regex(
    /^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,63}$/u,
    'letters, digits, _ . - (at most 64, not starting with . or -)',
  )

export const historySchema = z
  .strictObject({
    store: z
      .enum(['sqlite', 'redis', 'postgres', 'memory'])
      .default('sqlite')
      .describe('Where conversation history is kept.'),
    max_turns: z.int().min(0).max(1000).default(10).describe('Recent turns sent to the model.'),
    reset: z
      .strictObject({
        policy: z
          .enum(['none', 'turns', 'tokens'])
          .default('none')
          .describe('When to start a fresh history.'),
        max_turns: z
          .int()
          .min(0)
          .max(1_000_000)
          .default(0)
          .describe('policy turns: reset once a session has this many turns.'),
        max_tokens: z
          .int()
          .min(0)
          .max(100_000_000)
          .default(0)
          .describe('policy tokens: reset once the history holds this many tokens.'),
      })
      .prefault({}),
    continue_without_store: z
      .boolean()
      .default(false)
      .describe(
        'When the history store is down or past storage.timeout_ms: false ends the turn at once with store_unavailable; true answers without the history (the turn is still not stored).',
      ),
  })
  .describe('Conversation history.')

export const groupChatSchema = z
  .strictObject({
    observed_max_chars: z
      .int()
      .min(0)
      .max(1_000_000)
      .default(4000)
      .describe(
        'Characters of observed lines (said in the session without needing a reply) kept for the next input, newest first; older ones are dropped.',
      ),
    observed_max_lines: z
      .int()
      .min(0)
      .max(10_000)
      .default(50)
      .describe('Observed lines kept per session for the next input, newest first.'),
    observed_max_sessions: z
      .int()
      .min(1)
      .max(1_000_000)
      .default(10_000)
      .describe(
        'Sessions with pending observed lines; past it the session observed least recently loses its lines.',
      ),
    line_template: z
      .string()
      .max(1000)
      .default('{{name}}({{id}}): {{text}}')
      .describe('One line said by a speaker; {{name}} (the id when no name), {{id}}, {{text}}.'),
    template: z
      .string()
      .max(4000)
      .default('[群聊记录]\n{{observed}}\n[当前消息]\n{{current}}')
      .describe(
        'The input when observed lines are pending; {{observed}} (their lines, one a line) and {{current}} (the input as a line).',
      ),
    current_template: z
      .string()
      .max(4000)
      .default('[当前消息]\n{{current}}')
      .describe(
        'The input when it has a speaker and no observed lines are pending. No speaker and none pending: the text as is.',
      ),
  })
  .describe('Group chat: speakers on inputs and lines observed in the session.')

export const conversationSchema = z
  .strictObject({
    on_new_input: z
      .enum(['interrupt', 'queue'])
      .default('interrupt')
      .describe('A new input while a reply runs: interrupt it, or queue behind it.'),
    max_input_chars: z
      .int()
      .min(1)
      .max(10_000_000)
      .default(32_000)
      .describe(
        'Longest text of one input, in characters; a longer one is refused with bad_request (bounds the work one turn can cost).',
      ),
    group: groupChatSchema.prefault({}),
    preflight: z
      .boolean()
      .default(true)
      .describe(
        'Accept user_input with preflight: true (an early transcript): the turn is prepared from it, nothing sent or stored, and adopted when the final input has the same words. false: such inputs are ignored.',
      ),
    preflight_timeout_ms: z
      .int()
      .min(100)
      .max(600_000)
      .default(5000)
      .describe('A preflight no final input has confirmed by then is dropped (its model request aborted).'),
    preflight_max_restarts: z
      .int()
      .min(0)
      .max(100)
      .default(3)
      .describe(
        'Times a newer preflight with other words may replace the prepared one before the final input; past it newer ones are ignored.',
      ),
    preflight_min_interval_ms: z
      .int()
      .min(0)
      .max(60_000)
      .default(150)
      .describe(
        'A newer preflight with other words arriving sooner than this after the prepared one started is ignored (no request per partial transcript).',
      ),
  })
  .describe('Turn taking.')

export const embeddingsSchema = z.strictObject({
  provider: z.string().default('openai').describe('Registry name or any name with base_url.'),
  model: z.string().default('text-embedding-3-small').describe('Embedding model id.'),
  base_url: z.string().default('').describe("Embeddings API base URL; empty: the provider's default."),
  api_key: secret('API key.'),
})

export const memorySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Store turns as long-term memories and retrieve them.'),
    store: z
      .enum(['sqlite', 'postgres'])
      .default('sqlite')
      .describe(
        'Where long-term memories, their history of changes and the knowledge base are kept: sqlite (storage.sqlite_path) or postgres (storage.postgres_url, shared by several servers). Search ranks alike in both.',
      ),
    top_k: z.int().min(0).max(100).default(3).describe('Memories placed in the system prompt.'),
    min_score: z
      .number()
      .min(0)
      .max(1)
      .default(0.01)
      .describe(
        'Lowest relevance (0–1, the share of the best score the query could reach) a memory needs to be retrieved; 0: every match.',
      ),
    extract: z
      .boolean()
      .default(false)
      .describe('Let the model extract facts from turns instead of storing raw turns.'),
    extract_timeout_ms: timeoutMs()
      .default(20_000)
      .describe('Longest wait for one fact extraction; then the turn adds no facts.'),
    embeddings: embeddingsSchema
      .nullable()
      .default(null)
      .describe('An OpenAI-compatible embeddings endpoint; null: keyword retrieval only.'),
    index_max_mb: z
      .int()
      .min(1)
      .max(65_536)
      .default(64)
      .describe(
        'Memory the in-process keyword index may hold, in MiB; past it the scopes searched least recently are dropped and rebuilt from the database when next searched.',
      ),
  })
  .describe('Long-term memory.')

export const speechFilterSchema = z.enum(['markdown', 'emoji', 'stage_directions'])

export const sentenceSchema = z
  .strictObject({
    min_chars: z
      .int()
      .min(0)
      .max(10_000)
      .default(0)
      .describe('Merge a shorter sentence into the next one (0: off).'),
    max_chars: z.int().min(0).max(10_000).default(0).describe('Cut a longer sentence at a comma (0: off).'),
    first_clause_chars: z
      .int()
      .min(0)
      .max(10_000)
      .default(0)
      .describe('Emit the first clause of a reply at a comma once it has this many characters (0: off).'),
    early_release: z
      .boolean()
      .default(true)
      .describe(
        'Release a sentence as soon as a model chunk ends right after its 。！？!?；; instead of waiting for the ' +
          'next chunk; a closing quote, ～ or terminator that then follows leads the next sentence (silent to ' +
          'speech). Off: sentences never depend on how the reply was chunked.',
      ),
    speech_filters: z
      .array(speechFilterSchema)
      .default(['markdown'])
      .describe('Cleaning of sentence text for speech: markdown, emoji, stage_directions.'),
  })
  .describe('Sentence splitting for speech synthesis.')

export const assetsSchema = z
  .strictObject({
    dirs: z.array(z.string()).default([]).describe('Local folders the pipeline may read attachments from.'),
    max_bytes: z
      .int()
      .min(1)
      .max(100 * 1024 * 1024)
      .default(10 * 1024 * 1024)
      .describe('Largest attachment read (or image fetched for a describer); at most 100 MiB.'),
    allow_private_urls: z
      .boolean()
      .default(false)
      .describe(
        'Let the server fetch image URLs that resolve to private, loopback or link-local addresses (only done for a describer that needs the bytes).',
      ),
  })
  .describe('Local files and fetched images.')

export const storageSchema = z
  .strictObject({
    sqlite_path: z.string().min(1).default('./data/charpipe.db').describe('SQLite database file.'),
    redis_url: secret('Redis URL (history.store: redis; cluster.enabled).'),
    postgres_url: secret('PostgreSQL URL (history.store: postgres; memory.store: postgres).'),
    timeout_ms: timeoutMs()
      .default(1000)
      .describe(
        'Longest wait for one history or memory store call; past it (or when the store is down) the call fails with store_unavailable.',
      ),
  })
  .describe('Storage back ends.')

export const clusterSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Act as one of several servers sharing storage.redis_url (and storage.postgres_url): turns of one session never overlap across servers, an interrupt reaches the server running the turn, admin config changes reach every server.',
      ),
    lease_ms: z
      .int()
      .min(500)
      .max(600_000)
      .default(10_000)
      .describe(
        "How long a server holds a session's turn lock without renewing it (renewed every third of it while the turn runs): the longest a server that died mid-turn blocks its sessions.",
      ),
    lock_wait_ms: z
      .int()
      .positive()
      .max(3_600_000)
      .default(30_000)
      .describe(
        "Longest wait for a session's turn lock (or for Redis) before the turn ends with store_unavailable.",
      ),
    key_prefix: z
      .string()
      .min(1)
      .max(200)
      .default('charpipe:cluster:')
      .describe('Put before every Redis key and channel of the cluster; servers of one cluster share it.'),
  })
  .describe('Several servers acting as one (Redis for locks, interrupts and config changes).')

export const pipelineSchema = z
  .strictObject({
    processors: processorMapSchema.describe(
      'Per processor id: {enabled, priority, ...options}. Replaces the llm.processors entry of the same id.',
    ),
  })
  .describe('The context pipeline.')

export const mcpServerCommonFields = {
  include: z
    .array(z.string())
    .default([])
    .describe('Only these tools of the server (its own names); empty: all of them.'),
  exclude: z.array(z.string()).default([]).describe('Tools of the server left out (its own names).'),
  prefix: z
    .string()
    .default('')
    .describe('Put before each tool name, e.g. "fs_"; separates servers that offer one name.'),
  timeout_ms: z
    .int()
    .positive()
    .default(30000)
    .describe(
      'Longest wait for connecting and for one tool call; a turn waits for a connecting server at most this long.',
    ),
  max_result_chars: z
    .int()
    .positive()
    .default(20000)
    .describe('Longer tool results are cut to this many characters, with a note for the model.'),
}

export const mcpStdioServerSchema = z
  .strictObject({
    type: z.literal('stdio').optional().describe('As MCP servers document it; stdio is implied by command.'),
    command: z.string().min(1).describe('Program started for the server (config file only).'),
    args: z.array(z.string()).default([]).describe('Its arguments (config file only).'),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra environment variables (config file only; values are secrets).'),
    cwd: z.string().optional().describe('Working folder (config file only).'),
    ...mcpServerCommonFields,
  })
  .describe('An MCP server run as a child process speaking over stdio.')

export const mcpRemoteServerSchema = z
  .strictObject({
    type: z
      .enum(['http', 'streamable-http', 'streamableHttp', 'sse'])
      .optional()
      .describe('As MCP servers document it; sse: connect over the older SSE transport only.'),
    url: z.url().describe('Streamable HTTP endpoint (older SSE servers are tried when it fails).'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Headers sent with every request, e.g. Authorization (values are secrets).'),
    ...mcpServerCommonFields,
  })
  .describe('A remote MCP server.')

export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpRemoteServerSchema])

export const toolsSchema = z
  .strictObject({
    mcp_servers: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), mcpServerSchema)
      .default({})
      .describe('MCP servers whose tools the character may call, by name (the mcpServers JSON shape).'),
  })
  .describe('Tools the character may call.')

export const configSchema = z
  .strictObject({
    server: serverSchema.prefault({}),
    llm: llmSchema.prefault({}),
    openclaw: openclawSchema.prefault({}),
    character: characterSchema.prefault({}),
    characters: z
      .record(characterIdKeySchema, characterSchema)
      .default({})
      .describe(
        'More characters served by the same server, by id (user_input / POST /api/chat `character`, the OpenAI `model`); `character` stays the default one.',
      ),
    characters_dir: z
      .string()
      .default('')
      .describe(
        'A folder with one file per character (YAML, or a Character Card V2/V3 as .json or .png); the file name without extension is the id. Entries of `characters` with the same id are merged over them.',
      ),
    history: historySchema.prefault({}),
    conversation: conversationSchema.prefault({}),
    memory: memorySchema.prefault({}),
    sentence: sentenceSchema.prefault({}),
    assets: assetsSchema.prefault({}),
    storage: storageSchema.prefault({}),
    pipeline: pipelineSchema.prefault({}),
    tools: toolsSchema.prefault({}),
    cluster: clusterSchema.prefault({}),
  })
  .describe('charpipe configuration (config.yaml).')

/** The parsed config with every default filled in. */
export type CharpipeConfig = z.infer<typeof configSchema>
/** What a user may write: every field optional. */
export type CharpipeConfigInput = z.input<typeof configSchema>
export type FallbackProviderConfig = z.infer<typeof fallbackProviderSchema>
export type ProcessorSettings = z.infer<typeof processorSettingsSchema>
export type CharacterConfig = z.infer<typeof characterSchema>
export type LorebookConfig = z.infer<typeof lorebookSchema>
export type LorebookEntryConfig = z.infer<typeof lorebookEntrySchema>
export type SentenceConfig = z.infer<typeof sentenceSchema>
export type ReplyFormat = z.infer<typeof replyFormatSchema>
export type SpeechFilter = z.infer<typeof speechFilterSchema>
export type McpServerConfig = z.infer<typeof mcpServerSchema>
export type McpStdioServerConfig = z.infer<typeof mcpStdioServerSchema>
export type McpRemoteServerConfig = z.infer<typeof mcpRemoteServerSchema>

/** Paths of the fields that hold secrets (masked as `***` wherever the config is shown). */
export const secretFieldPaths = [
  ['server', 'token'],
  ['server', 'admin_token'],
  ['llm', 'api_key'],
  ['llm', 'fallbacks', '*', 'api_key'],
  ['llm', 'vision_describer', 'api_key'],
  ['llm', 'transcriber', 'api_key'],
  ['openclaw', 'token'],
  ['memory', 'embeddings', 'api_key'],
  ['storage', 'redis_url'],
  ['storage', 'postgres_url'],
  ['tools', 'mcp_servers', '*', 'env', '*'],
  ['tools', 'mcp_servers', '*', 'headers', '*'],
] as const
