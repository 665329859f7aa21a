// outpost.config.ts: project defaults for every check in a directory (Checkly's checkly.config.ts,
// reduced to what the agent uses).

import type { RetryStrategy, RuntimeId } from '../model/checks.ts'
import type { ProjectDefaults } from './check.ts'
import type { Report } from './diagnostics.ts'
import { ALL_FREQUENCIES, type Frequency, isFrequency } from './frequency.ts'
import { LOCATIONS, type Location } from './locations.ts'
import { validateRetryStrategy } from './retry-strategy.ts'
import { validateRuntimeId } from './runtime.ts'
import {
  checkBoolean,
  checkKnownKeys,
  checkString,
  checkStringArray,
  isRecord,
  listOf,
  show,
} from './values.ts'

export interface OutpostConfig {
  projectName?: string
  /** Kept for Checkly compatibility; not used by the agent. */
  logicalId?: string
  repoUrl?: string
  checks?: {
    frequency?: Frequency
    locations?: Location[]
    privateLocations?: string[]
    tags?: string[]
    activated?: boolean
    muted?: boolean
    retryStrategy?: RetryStrategy
    /** Runtime for Playwright and API checks that name none (default 2026.04). */
    runtimeId?: RuntimeId
    /** Globs, relative to the config's folder, of check files (default `**\/*.check.{ts,js,mjs}`). */
    checkMatch?: string | string[]
    /** Folder globs never searched (node_modules always is skipped). */
    ignoreDirectoriesMatch?: string[]
  }
}

/** Identity at run time; gives the config file its types. */
export function defineConfig(config: OutpostConfig): OutpostConfig {
  return config
}

export const DEFAULT_CHECK_MATCH = ['**/*.check.{ts,js,mjs}'] as const

export interface ResolvedProjectConfig {
  defaults: ProjectDefaults
  checkMatch: string[]
  ignoreDirectoriesMatch: string[]
}

const CHECKS_KEYS = [
  'frequency',
  'locations',
  'privateLocations',
  'tags',
  'activated',
  'muted',
  'retryStrategy',
  'runtimeId',
  'checkMatch',
  'ignoreDirectoriesMatch',
] as const

/** Reports problems under `checks.<option>` and returns what is usable (bad options fall back). */
export function resolveProjectConfig(report: Report, value: unknown): ResolvedProjectConfig {
  const resolved: ResolvedProjectConfig = {
    defaults: {},
    checkMatch: [...DEFAULT_CHECK_MATCH],
    ignoreDirectoriesMatch: [],
  }
  if (value === undefined) return resolved
  if (!isRecord(value)) {
    report('default export', `must be an object (use defineConfig({...})), got ${show(value)}`)
    return resolved
  }
  checkKnownKeys(report, '', value, ['projectName', 'logicalId', 'repoUrl', 'checks'])
  checkString(report, 'projectName', value.projectName)
  const checks = value.checks
  if (checks === undefined) return resolved
  if (!isRecord(checks)) {
    report('checks', `must be an object, got ${show(checks)}`)
    return resolved
  }
  checkKnownKeys(report, 'checks', checks, CHECKS_KEYS)
  const d = resolved.defaults
  if (checks.frequency !== undefined) {
    if (isFrequency(checks.frequency)) d.frequency = checks.frequency
    else
      report('checks.frequency', `must be one of ${listOf(ALL_FREQUENCIES)}, got ${show(checks.frequency)}`)
  }
  if (checkStringArray(report, 'checks.locations', checks.locations) && Array.isArray(checks.locations)) {
    const unknown = checks.locations.filter((l: string) => !(LOCATIONS as readonly string[]).includes(l))
    if (unknown.length > 0)
      report('checks.locations', `unknown ${listOf(unknown)}; known: ${listOf(LOCATIONS)}`)
    else d.locations = checks.locations as Location[]
  }
  if (
    checkStringArray(report, 'checks.privateLocations', checks.privateLocations) &&
    checks.privateLocations
  ) {
    d.privateLocations = checks.privateLocations as string[]
  }
  if (checkStringArray(report, 'checks.tags', checks.tags) && checks.tags) d.tags = checks.tags as string[]
  if (checkBoolean(report, 'checks.activated', checks.activated) && checks.activated !== undefined) {
    d.activated = checks.activated as boolean
  }
  if (checkBoolean(report, 'checks.muted', checks.muted) && checks.muted !== undefined)
    d.muted = checks.muted as boolean
  if (validateRetryStrategy(report, 'checks.retryStrategy', checks.retryStrategy) && checks.retryStrategy) {
    d.retryStrategy = checks.retryStrategy as RetryStrategy
  }
  if (checks.runtimeId !== undefined) {
    let ok = true
    validateRuntimeId(
      (p, r) => {
        ok = false
        report(p, r)
      },
      'checks.runtimeId',
      checks.runtimeId,
      'multistep checks',
    )
    if (ok) d.runtimeId = checks.runtimeId as RuntimeId
  }
  const match = typeof checks.checkMatch === 'string' ? [checks.checkMatch] : checks.checkMatch
  if (checkStringArray(report, 'checks.checkMatch', match) && Array.isArray(match) && match.length > 0) {
    resolved.checkMatch = match as string[]
  }
  if (checkStringArray(report, 'checks.ignoreDirectoriesMatch', checks.ignoreDirectoriesMatch)) {
    resolved.ignoreDirectoriesMatch = (checks.ignoreDirectoriesMatch as string[] | undefined) ?? []
  }
  return resolved
}
