/**
 * A shared config version as it lies in Redis: encrypted (AES-256-GCM), so the keys and tokens it
 * holds are not there in clear, and signed (HMAC-SHA256 over its number, its author and its bytes),
 * so whoever can write Redis without `cluster.shared_secret` cannot make a server take a version,
 * nor raise an old version's number to have it taken again. Both keys are derived from the shared
 * secret, which only the servers' config files hold.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'

/** The fields of the config hash in Redis. */
export interface SealedConfigVersion {
  version: string
  from: string
  payload: string
  signature: string
}

export interface OpenedConfigVersion {
  version: number
  from: string
  config: Record<string, unknown>
}

export interface ConfigVersionSeal {
  seal(version: number, from: string, config: Record<string, unknown>): SealedConfigVersion
  /** The version's content; throws an Error saying why when it is not a version sealed with this secret. */
  open(fields: Partial<SealedConfigVersion>): OpenedConfigVersion
}

const deriveKey = (secret: string, purpose: string) =>
  Buffer.from(hkdfSync('sha256', secret, 'charpipe cluster config', purpose, 32))

export function createConfigVersionSeal(sharedSecret: string): ConfigVersionSeal {
  const encryptionKey = deriveKey(sharedSecret, 'encrypt')
  const signingKey = deriveKey(sharedSecret, 'sign')
  const sign = (version: string, from: string, payload: string) =>
    createHmac('sha256', signingKey).update(`${version}\n${from}\n${payload}`).digest('hex')

  return {
    seal(version, from, config) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv)
      const body = Buffer.concat([cipher.update(JSON.stringify(config), 'utf8'), cipher.final()])
      const payload = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
      const number = String(version)
      return { version: number, from, payload, signature: sign(number, from, payload) }
    },
    open(fields) {
      const { version, from = '', payload, signature } = fields
      if (!version || !payload || !signature) throw new Error('it is not signed')
      const expected = Buffer.from(sign(version, from, payload), 'hex')
      const given = Buffer.from(signature, 'hex')
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new Error(
          'its signature does not verify (another cluster.shared_secret, or not written by a server)',
        )
      const bytes = Buffer.from(payload, 'base64')
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, bytes.subarray(0, 12))
      decipher.setAuthTag(bytes.subarray(12, 28))
      const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
      const config: unknown = JSON.parse(text)
      const number = Number(version)
      if (!Number.isSafeInteger(number) || number < 1) throw new Error('its version is not a number')
      if (config === null || typeof config !== 'object' || Array.isArray(config))
        throw new Error('it is not a config')
      return { version: number, from, config: config as Record<string, unknown> }
    },
  }
}
