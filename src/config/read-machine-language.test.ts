import { describe, expect, it } from 'vitest'
import { readMachineLanguage } from './read-machine-language.js'

const onLinux = (environment: Record<string, string | undefined>) =>
  readMachineLanguage({ environment, platform: 'linux', intlLocale: () => 'en-US' })

describe('readMachineLanguage', () => {
  it('reads LC_ALL, then LC_MESSAGES, then LANG', () => {
    expect(onLinux({ LANG: 'en_US.UTF-8' })).toBe('en')
    expect(onLinux({ LANG: 'zh_CN.UTF-8' })).toBe('zh')
    expect(onLinux({ LANG: 'en_US.UTF-8', LC_MESSAGES: 'zh_TW.UTF-8' })).toBe('zh')
    expect(onLinux({ LANG: 'zh_CN.UTF-8', LC_MESSAGES: 'zh_CN.UTF-8', LC_ALL: 'en_GB.UTF-8' })).toBe('en')
    expect(onLinux({ LANG: 'de_DE@euro' })).toBe('en')
  })

  it('gives the documented (Chinese) defaults to C, POSIX and an unset locale', () => {
    for (const locale of ['C', 'C.UTF-8', 'POSIX', ''])
      expect(onLinux({ LANG: locale }), JSON.stringify(locale)).toBe('zh')
    expect(onLinux({})).toBe('zh')
  })

  it('asks Intl on Windows, where the locale variables are not set', () => {
    expect(readMachineLanguage({ environment: {}, platform: 'win32', intlLocale: () => 'en-GB' })).toBe('en')
    expect(readMachineLanguage({ environment: {}, platform: 'win32', intlLocale: () => 'zh-CN' })).toBe('zh')
    expect(
      readMachineLanguage({ environment: { LANG: 'en_US' }, platform: 'win32', intlLocale: () => 'zh-CN' }),
    ).toBe('en')
  })
})
