// `{{NAME}}` placeholders in an API check's request, filled from the check's environment variables
// and the agent's SERVICE_SECRET_* before anything is sent. Every unknown name is reported with
// where it was found, so one run tells the user all that is missing.

import type { ApiRequest, EnvironmentVariable } from '../../model/checks.ts'
import { SERVICE_SECRET_PREFIX } from '../../secrets/named-secrets.ts'

const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}/g

export interface RequestVariables {
  values: ReadonlyMap<string, string>
  /** Names whose values are secrets: substituted values of these are scrubbed from the result. */
  secretNames: ReadonlySet<string>
}

export interface UnknownVariable {
  name: string
  /** The request field, e.g. `request.headers[1].value`. */
  where: string
}

export class UnknownVariableError extends Error {
  override name = 'UnknownVariableError'
  readonly code = 'UNKNOWN_VARIABLE'
  readonly unknown: readonly UnknownVariable[]
  constructor(unknown: readonly UnknownVariable[]) {
    const listed = unknown.map((u) => `{{${u.name}}} in ${u.where}`).join(', ')
    const them = unknown.length > 1 ? 'them' : 'it'
    super(
      `unknown variable${unknown.length > 1 ? 's' : ''} ${listed}: define ${them} in the check's ` +
        "environmentVariables, as SERVICE_SECRET_* in the agent's environment, or in a setup script " +
        '(process.env.NAME = ...); nothing was sent',
    )
    this.unknown = unknown
  }
}

/**
 * The check's variables win over the agent's: a check can override a shared default. The agent's
 * environment contributes only SERVICE_SECRET_* names, never API_KEY or anything else.
 */
export function requestVariables(
  checkVariables: readonly EnvironmentVariable[],
  agentEnv: Readonly<Record<string, string | undefined>>,
): RequestVariables {
  const values = new Map<string, string>()
  const secretNames = new Set<string>()
  for (const [name, value] of Object.entries(agentEnv)) {
    if (value === undefined || !name.startsWith(SERVICE_SECRET_PREFIX)) continue
    values.set(name, value)
    secretNames.add(name)
  }
  for (const { key, value, secret } of checkVariables) {
    values.set(key, value)
    if (secret === true || key.startsWith(SERVICE_SECRET_PREFIX)) secretNames.add(key)
    else secretNames.delete(key)
  }
  return { values, secretNames }
}

/**
 * Variables a setup script set (process.env.X = ...), usable as `{{X}}` in the request afterwards,
 * as Checkly allows. A SERVICE_SECRET_* name set by a script is a secret like any other.
 */
export function withScriptVariables(
  variables: RequestVariables,
  assigned: Readonly<Record<string, string>>,
): RequestVariables {
  const values = new Map(variables.values)
  const secretNames = new Set(variables.secretNames)
  for (const [name, value] of Object.entries(assigned)) {
    values.set(name, value)
    if (name.startsWith(SERVICE_SECRET_PREFIX)) secretNames.add(name)
  }
  return { values, secretNames }
}

export interface FilledRequest {
  request: ApiRequest
  /** Values of secret variables that were put into the request: the result is scrubbed of them. */
  secretValues: string[]
  /** Placeholders with no value, left as written. */
  unknown: UnknownVariable[]
}

/** Fills every known placeholder; unknown ones stay as written and are listed with their field. */
export function fillVariables(request: ApiRequest, variables: RequestVariables): FilledRequest {
  const unknown: UnknownVariable[] = []
  const secretValues = new Set<string>()
  const fill = (text: string, where: string): string =>
    text.replace(PLACEHOLDER, (whole, name: string) => {
      const value = variables.values.get(name)
      if (value === undefined) {
        unknown.push({ name, where })
        return whole
      }
      if (variables.secretNames.has(name)) secretValues.add(value)
      return value
    })
  const pairs = (list: ApiRequest['headers'], field: string) =>
    list.map((pair, i) => ({
      key: fill(pair.key, `request.${field}[${i}].key`),
      value: fill(pair.value, `request.${field}[${i}].value`),
    }))
  const filled: ApiRequest = {
    ...request,
    url: fill(request.url, 'request.url'),
    headers: pairs(request.headers, 'headers'),
    queryParameters: pairs(request.queryParameters, 'queryParameters'),
    body: fill(request.body, 'request.body'),
  }
  if (request.basicAuth) {
    filled.basicAuth = {
      username: fill(request.basicAuth.username, 'request.basicAuth.username'),
      password: fill(request.basicAuth.password, 'request.basicAuth.password'),
    }
  }
  return { request: filled, secretValues: [...secretValues], unknown }
}
