/**
 * Chinese labels for config keys; the key itself is always shown beside, and the description comes
 * from the schema, so an unlisted key still gets a usable form field.
 */
const labels: Record<string, string> = {
  name: '角色名',
  user_name: '用户称呼',
  persona: '人设',
  reply_format: '回复格式',
  default_emotion: '默认情绪',
  emotions: '情绪列表',
  inline_emotion_tags: '解析行内情绪标签',
  emotion_aliases: '情绪别名',
  user_emotion_map: '用户语气映射',
  injected_history: '示范对话',
  provider: '服务商',
  model: '模型',
  base_url: '接口地址',
  api_key: 'API 密钥',
  temperature: '温度',
  max_tokens: '最大输出 token',
  context_window: '上下文窗口',
  timeout_ms: '首字超时 (ms)',
  stall_timeout_ms: '中途停顿超时 (ms)',
  max_retries: '重试次数',
  function_calling: '原生工具调用',
  max_tool_steps: '工具调用最多步数',
  vision: '支持图片',
  fallbacks: '备用服务商',
  url: '网关地址',
  token: '令牌',
  session_key: '会话键',
  agent_id: 'Agent ID',
  enabled: '启用',
  priority: '优先级',
}

export function getFieldLabel(key: string): string {
  return labels[key] ?? key
}
