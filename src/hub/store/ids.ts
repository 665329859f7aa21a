import { createHash, randomBytes, randomUUID } from 'node:crypto'

export function newId(): string {
  return randomUUID()
}

/** A new API key: 32 random bytes, prefixed so a leaked key is recognisable in scanners. */
export function newApiKey(): string {
  return `op_${randomBytes(32).toString('base64url')}`
}

// Keys are 256-bit random values, so a fast hash is enough: there is nothing to brute-force.
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

export function iso(ms: number): string {
  return new Date(ms).toISOString()
}
