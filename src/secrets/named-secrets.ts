// Where secret values come from, with the name of each so a problem can be reported without
// the value: the agent's and a check's environment, values assigned during a run, and the
// Authorization header of runtime 2025.04 and later.

import { SCRUBBED, unscrubbableReason } from './scrubber.ts'

export interface NamedSecret {
  /** The variable or header the value came from; safe to log. */
  readonly name: string
  readonly value: string
}

export interface SecretWarning {
  readonly name: string
  /** Names the variable, never holds the value. */
  readonly message: string
}

export const SERVICE_SECRET_PREFIX = 'SERVICE_SECRET_'
const API_KEY = 'API_KEY'

/** SERVICE_SECRET_* and API_KEY from an environment (the agent's, or a check's once merged). */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>): NamedSecret[] {
  const secrets: NamedSecret[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (name.startsWith(SERVICE_SECRET_PREFIX) || name === API_KEY) secrets.push({ name, value })
  }
  return secrets
}

/** A check's environment variables that are secrets: SERVICE_SECRET_* names and those marked secret. */
export function secretsFromCheckVariables(
  variables: Iterable<{ readonly key: string; readonly value: string; readonly secret?: boolean }>,
): NamedSecret[] {
  const secrets: NamedSecret[] = []
  for (const { key, value, secret } of variables) {
    if (secret === true || key.startsWith(SERVICE_SECRET_PREFIX)) secrets.push({ name: key, value })
  }
  return secrets
}

/**
 * The secrets in an Authorization header value: the whole value, the credentials after the
 * scheme, and for Basic the decoded `user:password` and the password alone.
 */
export function authorizationSecrets(headerValue: string, name = 'Authorization header'): NamedSecret[] {
  const secrets: NamedSecret[] = [{ name, value: headerValue }]
  const match = /^\s*(\S+)\s+(\S.*?)\s*$/.exec(headerValue)
  if (!match) return secrets
  const scheme = match[1]!
  const credentials = match[2]!
  secrets.push({ name: `${name} credentials`, value: credentials })
  if (scheme.toLowerCase() === 'basic' && /^[A-Za-z0-9+/]+=*$/.test(credentials)) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon >= 0) {
      secrets.push({ name: `${name} user:password`, value: decoded })
      secrets.push({ name: `${name} password`, value: decoded.slice(colon + 1) })
    }
  }
  return secrets
}

/**
 * The values worth scrubbing. Empty values are dropped silently; values too short to scrub (or
 * that the marker itself contains) are dropped with a warning that names the variable only.
 */
export function scrubbableValues(
  secrets: Iterable<NamedSecret>,
  onWarning: (warning: SecretWarning) => void,
  marker = SCRUBBED,
): string[] {
  const values: string[] = []
  for (const { name, value } of secrets) {
    if (value.length === 0) continue
    const reason = unscrubbableReason(value, marker)
    if (reason === undefined) values.push(value)
    else onWarning({ name, message: `secret ${name} is not scrubbed: ${reason}` })
  }
  return values
}
