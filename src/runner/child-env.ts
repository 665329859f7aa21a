// The environment a check run sees. It is built from nothing rather than copied from the agent,
// so the agent's own variables (API_KEY above all) can never reach check code; only the base
// variables below and the SERVICE_SECRET_* family pass.

import type { EnvironmentVariable } from '../model/checks.ts'

/** Variables taken from the agent's environment: what a process needs to run and reach the network. */
export const BASE_ENV_KEYS = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'TZ',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
] as const

export interface ChildEnvOptions {
  /** The agent's environment; only BASE_ENV_KEYS and SERVICE_SECRET_* are read from it. */
  agentEnv: Record<string, string | undefined>
  checkEnv: EnvironmentVariable[]
  testSession: boolean
  /** Runner plumbing (reporter paths, heap cap); applied last so a check cannot override it. */
  runnerEnv: Record<string, string>
}

export function buildChildEnv(options: ChildEnvOptions): Record<string, string> {
  const env: Record<string, string> = {}
  for (const key of BASE_ENV_KEYS) {
    const value = options.agentEnv[key]
    if (value !== undefined) env[key] = value
  }
  // The agent's SERVICE_SECRET_* are how operators hand secrets to checks without writing them into
  // check code; the runner scrubs their values from everything a run produces. A check's own
  // variable of the same name wins.
  for (const [key, value] of Object.entries(options.agentEnv)) {
    if (key.startsWith('SERVICE_SECRET_') && value !== undefined) env[key] = value
  }
  for (const { key, value } of options.checkEnv) env[key] = value
  env.SERVICE = '1'
  if (options.testSession) env.CI = 'true'
  else delete env.CI
  return { ...env, ...options.runnerEnv }
}

/** Secret values a check's own variables carry: those marked secret and the SERVICE_SECRET_* family. */
export function checkSecretValues(checkEnv: EnvironmentVariable[]): string[] {
  return checkEnv.filter((v) => v.secret === true || v.key.startsWith('SERVICE_SECRET_')).map((v) => v.value)
}
