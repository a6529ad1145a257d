/**
 * A JSON answer of the server, loaded when a panel first shows and again on `refresh()`, with the
 * failure's message for the panel to show (the tool and connector listings).
 */
import { useEffect, useState } from 'preact/hooks'
import { requestJson } from './api-client.js'

export interface LoadedJson<T> {
  value: T
  errorMessage: string
  refresh(): Promise<void>
}

export function useLoadedJson<T>(path: string, read: (answer: Partial<T> | undefined) => T): LoadedJson<T> {
  const [value, setValue] = useState<T>(() => read(undefined))
  const [errorMessage, setErrorMessage] = useState('')
  const refresh = async () => {
    try {
      setValue(read(await requestJson<Partial<T>>('GET', path)))
      setErrorMessage('')
    } catch (error) {
      setErrorMessage(error instanceof Error ? error.message : String(error))
    }
  }
  useEffect(() => {
    void refresh()
  }, [])
  return { value, errorMessage, refresh }
}
