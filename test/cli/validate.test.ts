import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliArguments } from '../support/cli-command.js'

const root = join(import.meta.dirname, '..', '..')

function runCli(args: string[]) {
  return spawnSync(process.execPath, cliArguments(args), {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CHARPIPE_LOG_LEVEL: 'warn' },
  })
}

async function writeConfig(text: string) {
  const path = join(await mkdtemp(join(tmpdir(), 'charpipe-cli-')), 'config.yaml')
  await writeFile(path, text)
  return path
}

describe('charpipe validate', () => {
  it('a bad config exits non-zero listing every problem by path', async () => {
    const path = await writeConfig(
      [
        'server:',
        '  port: 99999',
        'llm:',
        '  provider: my-box',
        '  temperature: hot',
        'character:',
        '  reply_format: xml',
      ].join('\n'),
    )
    const result = runCli(['validate', '--config', path])
    expect(result.status).not.toBe(0)
    for (const field of ['server.port', 'llm.temperature', 'character.reply_format']) {
      expect(result.stderr).toContain(field)
    }
    expect(result.stderr).toContain(path)
  })

  it('an unknown provider without base_url is reported once the types are right', async () => {
    const result = runCli(['validate', '--config', await writeConfig('llm:\n  provider: my-box\n')])
    expect(result.status).not.toBe(0)
    expect(result.stderr).toMatch(/llm\.base_url: provider "my-box" is not in the registry/)
  })

  it('lists every problem in one pass: the provider together with the schema errors', async () => {
    const path = await writeConfig(
      ['llm:', '  provider: my-box', '  temperature: hot', 'character:', '  reply_format: jsonn'].join('\n'),
    )
    const result = runCli(['validate', '--config', path])
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/llm\.base_url: provider "my-box" is not in the registry/)
    expect(result.stderr).toContain('llm.temperature')
    expect(result.stderr).toContain(
      'character.reply_format: "jsonn" is not one of json, prefix, auto, plain (did you mean `json`?)',
    )
  })

  it('memory.store postgres without storage.postgres_url is named, in validate and in doctor', async () => {
    const path = await writeConfig('memory:\n  store: postgres\n')
    for (const command of ['validate', 'doctor']) {
      const result = runCli([command, '--config', path])
      expect(result.status, command).not.toBe(0)
      expect(`${result.stdout}${result.stderr}`).toMatch(
        /storage\.postgres_url: memory\.store is postgres but no postgres_url is set/,
      )
    }
  })

  it('suggests the nearest field and provider name', async () => {
    const path = await writeConfig(['llm:', '  provider: deepseak', '  modle: deepseek-chat'].join('\n'))
    const result = runCli(['validate', '--config', path])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('llm.modle: unknown field (did you mean `model`?)')
    expect(result.stderr).toMatch(
      /llm\.base_url: provider "deepseak" is not in the registry \(did you mean `deepseek`\?\)/,
    )
  })

  it('knows processor ids and their options', async () => {
    const path = await writeConfig(
      [
        'pipeline:',
        '  processors:',
        '    token-limiterr: { enabled: false }',
        '    memory-retriever: { top_kk: 5 }',
        'llm:',
        '  processors:',
        '    token-limiter: { safety_margin: 100, max_context_tokenz: 2000 }',
      ].join('\n'),
    )
    const result = runCli(['validate', '--config', path])
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(
      /pipeline\.processors\.token-limiterr: unknown processor "token-limiterr" \(did you mean `token-limiter`\?\)/,
    )
    expect(result.stderr).toMatch(
      /pipeline\.processors\.memory-retriever\.top_kk: unknown option of memory-retriever \(did you mean `top_k`\?\)/,
    )
    expect(result.stderr).toMatch(
      /llm\.processors\.token-limiter\.max_context_tokenz: unknown option of token-limiter \(did you mean `max_context_tokens`\?\)/,
    )
    expect(result.stderr).not.toContain('safety_margin:')
  })

  it('a good config passes and shows its soft warnings', async () => {
    const path = await writeConfig(
      'character:\n  injected_history:\n    - role: user\n      content: 你好\n    - role: assistant\n      content: 你好呀\n    - role: user\n      content: 再见\n',
    )
    const result = runCli(['validate', '--config', path])
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('valid')
    expect(result.stdout).toContain('warning: character.injected_history')
  })

  it('an unknown command exits 2 and names the commands', () => {
    const result = runCli(['frobnicate'])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('unknown command "frobnicate"')
  })
})

describe('output into a closed pipe', () => {
  it('stops quietly when the reader of stdout goes away (`charpipe … | head`)', async () => {
    const child = spawn(process.execPath, cliArguments(['doctor']), {
      cwd: await mkdtemp(join(tmpdir(), 'charpipe-cli-')),
      env: { ...process.env, NODE_OPTIONS: '', CHARPIPE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const code = await new Promise((done) => child.once('close', done))
    expect(stderr).not.toContain('EPIPE')
    expect(code).toBe(0)
  })
})
