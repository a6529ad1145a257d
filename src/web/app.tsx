/**
 * The page: one WebSocket and one loaded config shared by the panels, which are picked by the URL
 * hash (`#chat`, `#character`, …) so a reload or a link keeps the panel. Everything is worded in one
 * language at a time; switching it re-renders the page without losing unsaved edits.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ConfigFileBanner } from './components/config-file-banner.js'
import { ToastArea } from './components/toast.js'
import { onUnauthorized, requestJson } from './lib/api-client.js'
import { applyChatFrame, type ChatState, initialChatState } from './lib/apply-chat-frame.js'
import { refreshConfigStatus, useConfigStatus } from './lib/config-status.js'
import { type ChatSocket, createChatSocket, type SocketStatus } from './lib/create-chat-socket.js'
import {
  getLanguage,
  type Language,
  languages,
  onLanguageChange,
  setLanguage,
  translate,
} from './lib/i18n.js'
import type { JsonSchemaNode } from './lib/json-schema-node.js'
import { findPageCharacter, listPageCharacters } from './lib/list-page-characters.js'
import type { MessageKey } from './lib/page-messages.js'
import { readToken } from './lib/token-store.js'
import { useCharacterPicture } from './lib/use-character-picture.js'
import type { ConfigObject } from './lib/use-config-draft.js'
import { AudiencePanel } from './panels/audience-panel.js'
import { CharacterPanel } from './panels/character-panel.js'
import { CharacterSwitch } from './panels/character-switch.js'
import { ChatPanel } from './panels/chat-panel.js'
import { LoginBar } from './panels/login-bar.js'
import { MemoryPanel } from './panels/memory-panel.js'
import { PipelinePanel } from './panels/pipeline-panel.js'
import { PreviewPanel } from './panels/preview-panel.js'
import { ProviderPanel } from './panels/provider-panel.js'
import { rememberSession } from './panels/session-picker.js'

const tabs = ['chat', 'character', 'provider', 'pipeline', 'preview', 'memory', 'audience'] as const
type TabId = (typeof tabs)[number]

function readTab(): TabId {
  const hash = window.location.hash.replace(/^#\/?/, '')
  return tabs.find((id) => id === hash) ?? 'chat'
}

const languageNames: Record<Language, string> = { zh: '中文', en: 'English' }

function LanguageSwitch(props: { language: Language }) {
  return (
    <fieldset class="language-switch" aria-label={translate('app.language')}>
      {languages.map((language) => (
        <button
          type="button"
          class={language === props.language ? 'small active' : 'small'}
          data-language={language}
          aria-pressed={language === props.language}
          onClick={() => setLanguage(language)}
        >
          {languageNames[language]}
        </button>
      ))}
    </fieldset>
  )
}

function readStoredSession(): string {
  try {
    return localStorage.getItem('charpipe.session') || 'default'
  } catch {
    return 'default'
  }
}

function readStoredCharacter(): string {
  try {
    return localStorage.getItem('charpipe.character') || ''
  } catch {
    return ''
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
  /** A token was sent and refused (rather than none given). */
  const [tokenRefused, setTokenRefused] = useState(false)
  const [language, setShownLanguage] = useState<Language>(getLanguage())
  const configStatus = useConfigStatus()
  const activeTab = useRef<HTMLAnchorElement>(null)
  const [socket, setSocket] = useState<ChatSocket | undefined>()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const [chatState, setChatState] = useState<ChatState>(initialChatState)
  const [session, setSession] = useState(readStoredSession())
  const [characterId, setCharacterId] = useState(readStoredCharacter())
  // Counts the greetings the server stored when this page opened a session: the chat reloads then.
  const [greetings, setGreetings] = useState(0)
  const characters = listPageCharacters(config)
  const selected = findPageCharacter(characters, characterId)
  const picture = useCharacterPicture(selected)
  // Frames name the character only when it is not the default one.
  const chosenCharacter = selected && !selected.isDefault ? selected.id : undefined

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
      await refreshConfigStatus()
    } catch (error) {
      setLoadError(error instanceof Error ? error.message : String(error))
    }
  }

  useEffect(() => {
    const onHash = () => setTab(readTab())
    window.addEventListener('hashchange', onHash)
    const stopListening = onUnauthorized(() => {
      setTokenRefused(readToken() !== '')
      setNeedsToken(true)
    })
    const stopLanguage = onLanguageChange(setShownLanguage)
    document.documentElement.lang = getLanguage() === 'zh' ? 'zh-CN' : 'en'
    void loadAll()
    return () => {
      window.removeEventListener('hashchange', onHash)
      stopListening()
      stopLanguage()
    }
  }, [])

  // On a narrow screen the tab bar may scroll: keep the active tab in sight.
  useEffect(() => {
    activeTab.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' })
  }, [tab, language])

  useEffect(() => {
    const created = createChatSocket({
      onFrame: (frame) => {
        if (frame.type === 'opened' && frame.greeting) setGreetings((count) => count + 1)
        setChatState((state) => applyChatFrame(state, frame, sessionRef.current))
      },
      onStatus: setStatus,
    })
    setSocket(created)
    return () => created.close()
  }, [])

  const changeCharacter = (next: string) => {
    setCharacterId(next)
    setChatState(initialChatState)
    try {
      localStorage.setItem('charpipe.character', next)
    } catch {
      // Storage can be off; the default character is shown after a reload then.
    }
  }

  /** After a character was created, copied, imported or deleted: the config again, showing `id`. */
  const reloadCharacters = async (id: string) => {
    setConfig(await requestJson<ConfigObject>('GET', '/api/config'))
    changeCharacter(id)
  }

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
          charpipe <small>{selected?.name ?? ''}</small>
        </h1>
        <CharacterSwitch characters={characters} selected={selected} onSelect={changeCharacter} />
        <LanguageSwitch language={language} />
        <nav class="tabs">
          {tabs.map((id) => (
            <a
              href={`#${id}`}
              class={id === tab ? 'tab active' : 'tab'}
              data-tab={id}
              aria-current={id === tab ? 'page' : undefined}
              ref={id === tab ? activeTab : undefined}
            >
              {translate(`tab.${id}` as MessageKey)}
            </a>
          ))}
        </nav>
      </header>
      {needsToken ? (
        <LoginBar
          refused={tokenRefused}
          onToken={() => {
            void loadAll()
            socket?.reconnect()
          }}
        />
      ) : null}
      {loadError && !needsToken ? (
        <div class="error-box" role="alert">
          {translate('app.configLoadFailed', { message: loadError })}
        </div>
      ) : null}
      <ConfigFileBanner />
      <main>
        {tab === 'chat' ? (
          <ChatPanel
            socket={socket}
            status={status}
            needsToken={needsToken}
            config={config}
            configStatus={configStatus}
            state={chatState}
            setState={setChatState}
            session={session}
            character={chosenCharacter}
            greetings={greetings}
            onSessionChange={changeSession}
            emotionAliases={character.emotion_aliases ?? {}}
            emotionKeys={emotionKeys}
            picture={picture}
          />
        ) : null}
        {tab === 'character' && config && schema && selected ? (
          <CharacterPanel
            config={config}
            schema={schema}
            onSaved={setConfig}
            characters={characters}
            selected={selected}
            onCharactersChanged={reloadCharacters}
          />
        ) : null}
        {tab === 'provider' && config && schema ? (
          <ProviderPanel config={config} schema={schema} onSaved={setConfig} />
        ) : null}
        {tab === 'pipeline' ? <PipelinePanel onSaved={setConfig} /> : null}
        {tab === 'preview' ? (
          <PreviewPanel session={session} character={chosenCharacter} emotionKeys={emotionKeys} />
        ) : null}
        {tab === 'memory' ? <MemoryPanel session={session} character={chosenCharacter} /> : null}
        {tab === 'audience' ? <AudiencePanel session={session} character={chosenCharacter} /> : null}
      </main>
      <ToastArea />
    </div>
  )
}
