/**
 * Labels of the config fields the page shows, in English and Chinese, and the Chinese descriptions,
 * keyed by field path (`*` stands for a list row). The English descriptions are not here: they are
 * the schema's `.describe()` texts (and, for processors, the server's), read at run time, so the
 * schema stays the one source of what a field means. A test checks that every field the panels show
 * has an entry and that every entry names a field that exists. It is one table, past the usual
 * file size, because it is data that is read and checked as a whole.
 */
export interface FieldTextEntry {
  en: string
  zh: string
  /** Chinese description; absent when the field has no description in any language. */
  zhHint?: string
  /** Chinese labels of a select's options, by option value (the English ones come from the server). */
  zhOptions?: Record<string, string>
}

export const fieldTexts: Record<string, FieldTextEntry> = {
  'character.name': { en: 'Name', zh: '角色名', zhHint: '角色的名字（{{char}}）。' },
  'character.language': {
    en: 'Language',
    zh: '语言',
    zhHint:
      'charpipe 自己的提示词用哪种语言（格式说明、标签、用户默认称呼、给模型看的情绪名）；auto：按人设、开场白和场景判断。',
  },
  'character.user_name': {
    en: 'User name',
    zh: '用户称呼',
    zhHint: '对用户的称呼（{{user}}）；留空：按角色语言（用户 / User）。',
  },
  'character.persona': { en: 'Persona', zh: '人设', zhHint: '角色是谁：性格、背景、说话方式。' },
  'character.scenario': {
    en: 'Scenario',
    zh: '场景',
    zhHint: '对话发生的情境；放在人设之后（{{scenario}}）。',
  },
  'character.greeting': {
    en: 'Greeting',
    zh: '开场白',
    zhHint: '新会话以这句话开始，作为角色的第一条回复保存（角色卡的 first_mes）；留空则由用户先说。',
  },
  'character.alternate_greetings': {
    en: 'Alternate greetings',
    zh: '备选开场白',
    zhHint: '新会话从开场白和这些备选中随机选一句开始。',
  },
  'character.avatar': {
    en: 'Avatar',
    zh: '头像',
    zhHint: '角色的图片：素材路径、http(s) 地址或 data URI（导入角色卡时为卡片图片）。',
  },
  'character.reply_format': {
    en: 'Reply format',
    zh: '回复格式',
    zhHint:
      'json：{"emotion","text"}；prefix：先 {"emotion"} 再接纯文本；auto：两种都接受；plain：不解析情绪。',
  },
  'character.default_emotion': { en: 'Default emotion', zh: '默认情绪', zhHint: '模型没有给出情绪时使用。' },
  'character.emotions': { en: 'Emotions', zh: '情绪列表', zhHint: '模型可以使用的情绪标签。' },
  'character.inline_emotion_tags': {
    en: 'Inline emotion tags',
    zh: '解析行内情绪标签',
    zhHint: '解析正文里的 [开心] 或 <|ACT {"emotion":…}|> 这类标签。',
  },
  'character.emotion_aliases': {
    en: 'Emotion aliases',
    zh: '情绪别名',
    zhHint: '把模型可能写出的标签（happy）对应到配置的标签（开心）。',
  },
  'character.user_emotion_map': {
    en: 'User emotion map',
    zh: '用户语气映射',
    zhHint: '把语音识别给出的情绪映射为附加在用户消息后的 [用户语气：…] 文字。',
  },
  'character.injected_history': {
    en: 'Example dialogue',
    zh: '示范对话',
    zhHint: '放在系统提示之后、历史消息之前的示范对话。',
  },
  'character.injected_history.*.role': { en: 'Role', zh: '角色', zhHint: '谁说的。' },
  'character.injected_history.*.content': { en: 'Content', zh: '内容', zhHint: '说了什么。' },

  'llm.provider': {
    en: 'Provider',
    zh: '服务商',
    zhHint:
      '内置服务商名称（deepseek、moonshot、doubao、ollama、openai、anthropic、openclaw、custom、mock），或任意名称加 base_url。',
  },
  'llm.model': { en: 'Model', zh: '模型', zhHint: '模型 ID；留空使用服务商的默认模型。' },
  'llm.base_url': { en: 'Base URL', zh: '接口地址', zhHint: 'API 基础地址；留空使用服务商的默认地址。' },
  'llm.api_key': { en: 'API key', zh: 'API 密钥', zhHint: 'API 密钥。`${ENV_VAR}` 会替换为环境变量的值。' },
  'llm.temperature': { en: 'Temperature', zh: '温度', zhHint: '采样温度。' },
  'llm.max_tokens': {
    en: 'Max output tokens',
    zh: '最大输出 token',
    zhHint: '一次回复最多生成的 token 数。',
  },
  'llm.context_window': {
    en: 'Context window',
    zh: '上下文窗口',
    zhHint: '模型的上下文窗口（token）；0：使用内置服务商表中的值。',
  },
  'llm.timeout_ms': {
    en: 'First-chunk timeout (ms)',
    zh: '首字超时 (ms)',
    zhHint: '到时仍没有第一段回复：中止请求。',
  },
  'llm.stall_timeout_ms': {
    en: 'Stall timeout (ms)',
    zh: '中途停顿超时 (ms)',
    zhHint: '流式回复中途这么久没有新内容：中止。',
  },
  'llm.max_retries': {
    en: 'Retries',
    zh: '重试次数',
    zhHint: '第一段回复之前的重试次数（网络错误、408、409、429、5xx）。',
  },
  'llm.function_calling': {
    en: 'Native tool calls',
    zh: '原生工具调用',
    zhHint: '模型支持原生工具调用；关闭时工具说明写进系统提示。',
  },
  'llm.max_tool_steps': {
    en: 'Most tool steps',
    zh: '工具调用最多步数',
    zhHint: '一轮对话中调用工具时最多请求模型的次数。',
  },
  'llm.vision': { en: 'Accepts images', zh: '支持图片', zhHint: '模型能接收图片。' },
  'llm.fallbacks': {
    en: 'Fallbacks',
    zh: '备用服务商',
    zhHint: '当前服务商在第一段回复之前失败时，依次尝试这些服务商。',
  },
  'llm.fallbacks.*.provider': {
    en: 'Provider',
    zh: '服务商',
    zhHint: '内置服务商名称，或任意名称加 base_url（OpenAI 兼容）。',
  },
  'llm.fallbacks.*.model': { en: 'Model', zh: '模型', zhHint: '模型 ID；留空使用服务商的默认模型。' },
  'llm.fallbacks.*.base_url': {
    en: 'Base URL',
    zh: '接口地址',
    zhHint: 'API 基础地址；留空使用服务商的默认地址。',
  },
  'llm.fallbacks.*.api_key': {
    en: 'API key',
    zh: 'API 密钥',
    zhHint: 'API 密钥。`${ENV_VAR}` 会替换为环境变量的值。',
  },

  'openclaw.url': { en: 'Gateway URL', zh: '网关地址', zhHint: '网关的基础地址。' },
  'openclaw.token': {
    en: 'Token',
    zh: '令牌',
    zhHint: '网关的 Bearer 令牌。`${ENV_VAR}` 会替换为环境变量的值。',
  },
  'openclaw.session_key': { en: 'Session key', zh: '会话键', zhHint: '作为 x-openclaw-session-key 发送。' },
  'openclaw.agent_id': {
    en: 'Agent ID',
    zh: 'Agent ID',
    zhHint: '设置时作为 x-openclaw-agent-id 发送；留空：网关的默认 agent。',
  },
  'openclaw.timeout_ms': {
    en: 'First-chunk timeout (ms)',
    zh: '首字超时 (ms)',
    zhHint: '到时仍没有第一段回复：中止请求。',
  },

  // Processors: their names and options come from GET /api/processors; these are the translations.
  'pipeline.processors.*.enabled': { en: 'Enabled', zh: '启用' },
  'pipeline.processors.*.priority': { en: 'Priority', zh: '优先级' },
  'pipeline.processors.session-loader': {
    en: 'Session loader',
    zh: '会话加载器',
    zhHint: '从历史存储读取本会话最近的几轮对话（history.max_turns）。',
  },
  'pipeline.processors.session-loader.max_turns': {
    en: 'Turns loaded',
    zh: '加载轮数',
    zhHint: '设置时覆盖 history.max_turns。',
  },
  'pipeline.processors.session-loader.trim_block': {
    en: 'Drop old turns in blocks of',
    zh: '旧轮次成批移出',
    zhHint: '最早的轮次每次移出这么多轮，使提示开头在这些轮内保持不变（利于提示缓存）。1：一次一轮。',
  },
  'pipeline.processors.session-loader.replay_format': {
    en: 'Past replies in the reply format',
    zh: '历史回复保持回复格式',
    zhHint: '把过去的回复按模型被要求的格式（带情绪的 JSON、情绪行或行内标签）交还给模型，而不是纯文本。',
  },
  'pipeline.processors.memory-retriever': {
    en: 'Memory retriever',
    zh: '长期记忆检索',
    zhHint: '为输入检索相关的长期记忆和知识（memory.top_k）。',
  },
  'pipeline.processors.memory-retriever.top_k': {
    en: 'Memories',
    zh: '记忆条数',
    zhHint: '设置时覆盖 memory.top_k。',
  },
  'pipeline.processors.memory-retriever.token_budget': {
    en: 'Token budget',
    zh: 'token 预算',
    zhHint: '检索到的记忆最多占用的 token 数。',
  },
  'pipeline.processors.regex-processor': {
    en: 'Regex processor',
    zh: '正则处理器',
    zhHint: '对输入、历史或回复显示文本做正则替换（RE2 语法，线性时间）。',
  },
  'pipeline.processors.regex-processor.rules': {
    en: 'Rules',
    zh: '规则',
    zhHint:
      '{pattern, flags, replacement, scope: input | history | output-display（或列表）, enabled} 的列表。',
  },
  'pipeline.processors.regex-processor.max_input_chars': {
    en: 'Longest text',
    zh: '最长文本',
    zhHint: '比这更长的文本不做处理；规则最多给一段文本增加这么多字符。',
  },
  'pipeline.processors.attachment-text': {
    en: 'Attachment text',
    zh: '附件文本提取',
    zhHint: '把文本附件读进提示；为不支持图片的模型描述图片（[图片:描述]）。',
  },
  'pipeline.processors.attachment-text.describe_images': {
    en: 'Describe images for non-vision models',
    zh: '为不支持图片的模型描述图片',
  },
  'pipeline.processors.lorebook': {
    en: 'Lorebook',
    zh: '世界书',
    zhHint: '最近的消息里出现某条目的关键词时，把该条目注入上下文（角色的 lorebook，在其 token 预算内）。',
  },
  'pipeline.processors.lorebook.max_recursion': {
    en: 'Recursion rounds',
    zh: '递归轮数',
    zhHint: 'lorebook 开启 recursive 时，已注入条目的内容最多再触发几轮其他条目。',
  },
  'pipeline.processors.injection-assembler': {
    en: 'Injection assembler',
    zh: '注入组装器',
    zhHint: '系统提示（名字、人设、回复格式、记忆）、示范对话、深度注入和锚点注入、宏。',
  },
  'pipeline.processors.injection-assembler.system_prompt': {
    en: 'System prompt template',
    zh: '系统提示模板',
    zhHint:
      '替换系统提示中名字、人设和场景的部分（写 {{original}} 把这部分放回原处）；可以使用 {{char}} 等宏。',
  },
  'pipeline.processors.injection-assembler.depth_injections': {
    en: 'Depth injections',
    zh: '深度注入',
    zhHint: '{content, role: system|user|assistant, depth} 的列表（0 = 最新一条历史消息之后）。',
  },
  'pipeline.processors.injection-assembler.anchors': {
    en: 'Anchors',
    zh: '锚点注入',
    zhHint: '{position: before_persona|after_persona|before_history|after_history, role, content} 的列表。',
  },
  'pipeline.processors.injection-assembler.memory_position': {
    en: 'Memories and knowledge go',
    zh: '记忆和资料的位置',
    zhHint: 'before_input 让系统提示和历史每轮保持不变，服务商的提示缓存才能命中。',
    zhOptions: { system_prompt: '系统提示的末尾', before_input: '紧挨在输入之前（利于缓存）' },
  },
  'pipeline.processors.injection-assembler.memory_header': { en: 'Memory header', zh: '记忆标题' },
  'pipeline.processors.injection-assembler.knowledge_header': { en: 'Knowledge header', zh: '资料标题' },
  'pipeline.processors.injection-assembler.time_zone': {
    en: 'Time zone',
    zh: '时区',
    zhHint: '用于 {{time}}、{{date}} 和 {{weekday}}；留空：服务器的时区。',
  },
  'pipeline.processors.user-emotion': {
    en: 'User emotion',
    zh: '用户情感注入',
    zhHint: '把识别出的用户情绪以 [用户语气：…] 附加到输入（character.user_emotion_map）。',
  },
  'pipeline.processors.user-emotion.history': {
    en: 'Also in past turns',
    zh: '历史轮次也附加',
    zhHint: '历史中过去的用户消息也附上当时保存的语气说明。',
  },
  'pipeline.processors.token-limiter': {
    en: 'Token limiter',
    zh: 'Token 限制器',
    zhHint: '从最早的整轮历史开始删减，直到上下文放得进模型（系统提示、记忆和输入不删）。',
  },
  'pipeline.processors.token-limiter.safety_margin': {
    en: 'Safety margin',
    zh: '安全余量',
    zhHint: '在 max_tokens 之外再留出的 token（估算可能略有偏差）。',
  },
  'pipeline.processors.token-limiter.max_context_tokens': {
    en: 'Context cap',
    zh: '上下文上限',
    zhHint: '把上下文限制在模型窗口以下（0：使用窗口大小）。',
  },
  'pipeline.processors.merge-system-messages': {
    en: 'Merge system messages',
    zh: '合并 System 消息',
    zhHint: '把开头的 system 消息合并为一条（选 all：合并所有 system 消息）。',
  },
  'pipeline.processors.merge-system-messages.all': {
    en: 'Merge every system message',
    zh: '合并所有 system 消息',
  },
  'pipeline.processors.merge-system-messages.separator': { en: 'Separator', zh: '分隔符' },
  'pipeline.processors.openclaw-input': {
    en: 'OpenClaw input only',
    zh: 'OpenClaw 仅输入',
    zhHint: '用于 OpenClaw 网关（它自己保存上下文）：只发送用户输入。',
  },
  'pipeline.processors.merge-consecutive-roles': {
    en: 'Merge consecutive roles',
    zh: '合并连续角色',
    zhHint: '合并相邻的同角色消息（user/user、assistant/assistant）。',
  },
  'pipeline.processors.merge-consecutive-roles.separator': { en: 'Separator', zh: '分隔符' },
  'pipeline.processors.convert-system-to-user': {
    en: 'System to user',
    zh: 'System 转 User',
    zhHint: '用于没有 system 角色的模型：system 消息变为 user 文本。',
  },
  'pipeline.processors.convert-system-to-user.always': {
    en: 'Also for models with a system role',
    zh: '对有 system 角色的模型也转换',
  },
  'pipeline.processors.anthropic-format': {
    en: 'Anthropic role alternation',
    zh: 'Anthropic 角色交替',
    zhHint: '用于 Anthropic 模型：开头一条系统提示，用户先说，user/assistant 交替，没有空消息。',
  },
  'pipeline.processors.anthropic-format.always': { en: 'Also for other models', zh: '对其他模型也使用' },
  'pipeline.processors.anthropic-format.first_user_text': { en: 'Opening user text', zh: '开头的用户文本' },
  'pipeline.processors.asset-resolver': {
    en: 'Asset resolver',
    zh: '资源解析器',
    zhHint:
      '最后一步：本地图片（在 assets.dirs 内）变为 data: URI；URL 原样传递；模型不能接收的内容用占位文字。',
  },
}
