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
    super(
      `unknown variable${unknown.length > 1 ? 's' : ''} ${listed}: define ${unknown.length > 1 ? 'them' : 'it'} ` +
        `in the check's environmentVariables (or as SERVICE_SECRET_* in the agent's environment); nothing was sent`,
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

export interface SubstitutedRequest {
  request: ApiRequest
  /** Values of secret variables that were put into the request: the result is scrubbed of them. */
  secretValues: string[]
}

/** Throws UnknownVariableError naming every unknown placeholder and its field. */
export function substituteRequest(request: ApiRequest, variables: RequestVariables): SubstitutedRequest {
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
  if (unknown.length > 0) throw new UnknownVariableError(unknown)
  return { request: filled, secretValues: [...secretValues] }
}
