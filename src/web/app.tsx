/**
 * The page: one WebSocket and one loaded config shared by the panels, which are picked by the URL
 * hash (`#chat`, `#character`, …) so a reload or a link keeps the panel.
 */
import { useEffect, useState } from 'preact/hooks'
import { ToastArea } from './components/toast.js'
import { onUnauthorized, requestJson } from './lib/api-client.js'
import { applyChatFrame, type ChatState, initialChatState } from './lib/apply-chat-frame.js'
import { type ChatSocket, createChatSocket, type SocketStatus } from './lib/create-chat-socket.js'
import type { JsonSchemaNode } from './lib/json-schema-node.js'
import type { ConfigObject } from './lib/use-config-draft.js'
import { CharacterPanel } from './panels/character-panel.js'
import { ChatPanel } from './panels/chat-panel.js'
import { LoginBar } from './panels/login-bar.js'
import { MemoryPanel } from './panels/memory-panel.js'
import { PipelinePanel } from './panels/pipeline-panel.js'
import { PreviewPanel } from './panels/preview-panel.js'
import { ProviderPanel } from './panels/provider-panel.js'
import { rememberSession } from './panels/session-picker.js'

const tabs = [
  ['chat', '对话 Chat'],
  ['character', '角色 Character'],
  ['provider', '模型 Provider'],
  ['pipeline', '流水线 Pipeline'],
  ['preview', '预览 Preview'],
  ['memory', '记忆 Memory'],
] as const
type TabId = (typeof tabs)[number][0]

function readTab(): TabId {
  const hash = window.location.hash.replace(/^#\/?/, '')
  return (tabs.find(([id]) => id === hash)?.[0] ?? 'chat') as TabId
}

function readStoredSession(): string {
  try {
    return localStorage.getItem('charpipe.session') || 'default'
  } catch {
    return 'default'
  }
}

/** The session the socket handler reads; a ref so the one socket follows session changes. */
const sessionRef = { current: readStoredSession() }

export function App() {
  const [tab, setTab] = useState<TabId>(readTab())
  const [config, setConfig] = useState<ConfigObject | undefined>()
  const [schema, setSchema] = useState<JsonSchemaNode | undefined>()
  const [loadError, setLoadError] = useState('')
  const [needsToken, setNeedsToken] = useState(false)
  const [socket, setSocket] = useState<ChatSocket | undefined>()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const [chatState, setChatState] = useState<ChatState>(initialChatState)
  const [session, setSession] = useState(readStoredSession())

  const loadAll = async () => {
    setLoadError('')
    try {
      const [loadedSchema, loadedConfig] = await Promise.all([
        requestJson<JsonSchemaNode>('GET', 'config.schema.json'),
        requestJson<ConfigObject>('GET', '/api/config'),
      ])
      setSchema(loadedSchema)
      setConfig(loadedConfig)
      setNeedsToken(false)
    } catch (error) {
      setLoadError(error instanceof Error ? error.message : String(error))
    }
  }

  useEffect(() => {
    const onHash = () => setTab(readTab())
    window.addEventListener('hashchange', onHash)
    const stopListening = onUnauthorized(() => setNeedsToken(true))
    void loadAll()
    return () => {
      window.removeEventListener('hashchange', onHash)
      stopListening()
    }
  }, [])

  useEffect(() => {
    const created = createChatSocket({
      onFrame: (frame) => setChatState((state) => applyChatFrame(state, frame, sessionRef.current)),
      onStatus: setStatus,
    })
    setSocket(created)
    return () => created.close()
  }, [])

  const changeSession = (next: string) => {
    sessionRef.current = next
    setSession(next)
    setChatState(initialChatState)
    rememberSession(next)
    try {
      localStorage.setItem('charpipe.session', next)
    } catch {
      // Storage can be off; the session then resets on reload.
    }
  }

  const character = (config?.character ?? {}) as {
    emotion_aliases?: Record<string, string>
    user_emotion_map?: Record<string, string>
  }
  const emotionKeys = Object.keys(character.user_emotion_map ?? {})
  return (
    <div class="app">
      <header class="top">
        <h1>
          charpipe <small>{String((config?.character as { name?: string } | undefined)?.name ?? '')}</small>
        </h1>
        <nav class="tabs">
          {tabs.map(([id, label]) => (
            <a href={`#${id}`} class={id === tab ? 'tab active' : 'tab'} data-tab={id}>
              {label}
            </a>
          ))}
        </nav>
      </header>
      {needsToken ? (
        <LoginBar
          onToken={() => {
            void loadAll()
            socket?.reconnect()
          }}
        />
      ) : null}
      {loadError && !needsToken ? (
        <div class="error-box" role="alert">
          配置读取失败 (cannot load config): {loadError}
        </div>
      ) : null}
      <main>
        {tab === 'chat' ? (
          <ChatPanel
            socket={socket}
            status={status}
            state={chatState}
            setState={setChatState}
            session={session}
            onSessionChange={changeSession}
            emotionAliases={character.emotion_aliases ?? {}}
            emotionKeys={emotionKeys}
          />
        ) : null}
        {tab === 'character' && config && schema ? (
          <CharacterPanel config={config} schema={schema} onSaved={setConfig} />
        ) : null}
        {tab === 'provider' && config && schema ? (
          <ProviderPanel config={config} schema={schema} onSaved={setConfig} />
        ) : null}
        {tab === 'pipeline' ? <PipelinePanel onSaved={setConfig} /> : null}
        {tab === 'preview' ? <PreviewPanel session={session} emotionKeys={emotionKeys} /> : null}
        {tab === 'memory' ? <MemoryPanel session={session} /> : null}
      </main>
      <ToastArea />
    </div>
  )
}
