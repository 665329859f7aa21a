// Small parsers for environment values. Each throws ConfigError naming variable, value and rule.

import { ConfigError } from './config-error.ts'

export type Env = Readonly<Record<string, string | undefined>>

export function intInRange(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const trimmed = raw.trim()
  const value = Number(trimmed)
  if (!/^-?\d+$/.test(trimmed) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, raw, `expected a whole number from ${min} to ${max} (default ${fallback})`)
  }
  return value
}

export function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const value = raw.trim().toLowerCase()
  const match = allowed.find((a) => a === value)
  if (match === undefined) {
    throw new ConfigError(name, raw, `expected one of ${allowed.join(', ')} (default ${fallback})`)
  }
  return match
}

/** An absolute http(s) URL, or undefined when unset. `secretValue` hides the value in the error. */
export function optionalUrl(
  env: Env,
  name: string,
  protocols: readonly string[] = ['http:', 'https:'],
): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return undefined
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new ConfigError(name, raw, `expected an absolute URL such as ${protocols[0]}//host:port`)
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(
      name,
      raw,
      `expected a URL with scheme ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`,
    )
  }
  return raw.trim()
}

export function optionalString(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim()
}
