// What every check construct shares: the common props, their validation and defaults, registration
// with the load in progress, and the common half of the CheckDefinition.

import type {
  CheckDefinition,
  CheckType,
  EnvironmentVariable,
  RetryStrategy,
  RuntimeId,
  UrlCheck,
} from '../model/checks.ts'
import type { Diagnostics, Report } from './diagnostics.ts'
import {
  ALL_FREQUENCIES,
  DEFAULT_FREQUENCY,
  FREQUENCY_SECONDS,
  type Frequency,
  isFrequency,
} from './frequency.ts'
import { LOCATIONS, type Location } from './locations.ts'
import { completeRetryStrategy, validateRetryStrategy } from './retry-strategy.ts'
import { registerConstruct } from './session.ts'
import {
  checkBoolean,
  checkInteger,
  checkKnownKeys,
  checkString,
  checkStringArray,
  isRecord,
  listOf,
  show,
} from './values.ts'

const MAX_NAME_LENGTH = 1024
const MAX_DESCRIPTION_LENGTH = 10_000
const MAX_TAG_LENGTH = 256
export interface CheckProps {
  /** Shown in results, the dashboard and notifications. */
  name: string
  description?: string
  /** false: the check is kept but not scheduled (default true). */
  activated?: boolean
  /** true: runs, but raises no alerts (default false). */
  muted?: boolean
  tags?: string[]
  frequency?: Frequency
  /** Public location codes (default none: the agent's own private location only). */
  locations?: Location[]
  privateLocations?: string[]
  /** Default: no retries. */
  retryStrategy?: RetryStrategy
  environmentVariables?: EnvironmentVariable[]
  /** Overrides the per-type job timeout (30 s for uptime monitors, 240 s for Playwright and API checks). */
  timeoutSeconds?: number
}

/** Project-wide defaults from outpost.config.ts; a check's own props win over them. */
export interface ProjectDefaults {
  frequency?: Frequency
  locations?: Location[]
  privateLocations?: string[]
  tags?: string[]
  activated?: boolean
  muted?: boolean
  retryStrategy?: RetryStrategy
  runtimeId?: RuntimeId
}

export interface CheckContext {
  /** Absolute path of the file that declared the check; relative paths in props resolve from its folder. */
  checkFile: string
  defaults?: ProjectDefaults
}

export const COMMON_PROPS = [
  'name',
  'description',
  'activated',
  'muted',
  'tags',
  'frequency',
  'locations',
  'privateLocations',
  'retryStrategy',
  'environmentVariables',
  'timeoutSeconds',
] as const

export const LOGICAL_ID_PATTERN = /^[A-Za-z0-9_.-]{1,255}$/
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/
export const MAX_TIMEOUT_SECONDS = 3600

type CommonDefinition = Omit<UrlCheck, 'type' | 'request' | 'degradedResponseTime' | 'maxResponseTime'>

export abstract class Check<Props extends CheckProps = CheckProps> {
  readonly logicalId: string
  readonly props: Props

  constructor(logicalId: string, props: Props) {
    this.logicalId = logicalId
    this.props = props
    registerConstruct(this)
  }

  abstract get type(): CheckType
  /** Plural noun for reasons, e.g. "URL monitors". */
  protected abstract get kind(): string
  /** Option names beyond the common ones. */
  protected abstract get ownProps(): readonly string[]
  /** Frequencies this kind may run at; empty when it takes none (heartbeats). */
  protected abstract get frequencies(): readonly Frequency[]
  protected abstract validateOwn(report: Report, props: Record<string, unknown>, context: CheckContext): void
  /** Call only after validate() reported nothing for this check. */
  abstract toDefinition(context: CheckContext): CheckDefinition

  validate(diagnostics: Diagnostics, context: CheckContext): void {
    const report: Report = (property, reason) =>
      diagnostics.add({ file: context.checkFile, logicalId: String(this.logicalId), property, reason })
    if (typeof this.logicalId !== 'string' || !LOGICAL_ID_PATTERN.test(this.logicalId)) {
      report('logicalId', `must be 1 to 255 letters, digits, '_', '-' or '.', got ${show(this.logicalId)}`)
    }
    const props: unknown = this.props
    if (!isRecord(props)) {
      report('props', `must be an object of options, got ${show(props)}`)
      return
    }
    checkKnownKeys(report, '', props, [...COMMON_PROPS, ...this.ownProps])
    this.#validateCommon(report, props, context)
    this.validateOwn(report, props, context)
  }

  #validateCommon(report: Report, props: Record<string, unknown>, context: CheckContext): void {
    // Bounded: the name goes into every result and log line of every run.
    checkString(report, 'name', props.name, { required: true, maxLength: MAX_NAME_LENGTH })
    checkString(report, 'description', props.description, { maxLength: MAX_DESCRIPTION_LENGTH })
    checkBoolean(report, 'activated', props.activated)
    checkBoolean(report, 'muted', props.muted)
    checkStringArray(report, 'tags', props.tags, MAX_TAG_LENGTH)
    this.#validateFrequency(report, props.frequency, context)
    if (checkStringArray(report, 'locations', props.locations) && Array.isArray(props.locations)) {
      props.locations.forEach((location: string, index) => {
        if (!(LOCATIONS as readonly string[]).includes(location)) {
          report(`locations[${index}]`, `unknown location ${show(location)}; known: ${listOf(LOCATIONS)}`)
        }
      })
    }
    checkStringArray(report, 'privateLocations', props.privateLocations)
    validateRetryStrategy(report, 'retryStrategy', props.retryStrategy)
    validateEnvironmentVariables(report, props.environmentVariables)
    checkInteger(report, 'timeoutSeconds', props.timeoutSeconds, 1, MAX_TIMEOUT_SECONDS, 's')
  }

  #validateFrequency(report: Report, value: unknown, context: CheckContext): void {
    const allowed = this.frequencies
    if (allowed.length === 0) {
      if (value !== undefined)
        report('frequency', `${this.kind} take no frequency; they expect a ping every period`)
      return
    }
    const range = allowed.length === ALL_FREQUENCIES.length ? 'EVERY_10S..EVERY_24H' : 'EVERY_1M..EVERY_24H'
    if (value === undefined) {
      const projectDefault = context.defaults?.frequency
      if (projectDefault !== undefined && !allowed.includes(projectDefault)) {
        report(
          'frequency',
          `the project default ${projectDefault} (outpost.config) is not allowed for ${this.kind} (${range}); set frequency on this check`,
        )
      }
      return
    }
    if (!isFrequency(value)) {
      report('frequency', `must be a Frequency (${range}), got ${show(value)}`)
    } else if (!allowed.includes(value)) {
      report('frequency', `${value} is not allowed for ${this.kind}; use ${range}`)
    }
  }

  protected frequencySeconds(context: CheckContext): number {
    return FREQUENCY_SECONDS[this.props.frequency ?? context.defaults?.frequency ?? DEFAULT_FREQUENCY]
  }

  protected commonDefinition(context: CheckContext): CommonDefinition {
    const p = this.props
    const d = context.defaults ?? {}
    const definition: CommonDefinition = {
      logicalId: this.logicalId,
      name: p.name,
      activated: p.activated ?? d.activated ?? true,
      muted: p.muted ?? d.muted ?? false,
      tags: [...(p.tags ?? d.tags ?? [])],
      frequencySeconds: this.frequencySeconds(context),
      locations: [...(p.locations ?? d.locations ?? [])],
      privateLocations: [...(p.privateLocations ?? d.privateLocations ?? [])],
      retryStrategy: completeRetryStrategy(p.retryStrategy ?? d.retryStrategy),
      environmentVariables: (p.environmentVariables ?? []).map((v) => ({
        key: v.key,
        value: v.value,
        ...(v.secret === undefined ? {} : { secret: v.secret }),
      })),
      sourceFile: context.checkFile,
    }
    if (p.description !== undefined) definition.description = p.description
    if (p.timeoutSeconds !== undefined) definition.timeoutSeconds = p.timeoutSeconds
    return definition
  }
}

function validateEnvironmentVariables(report: Report, value: unknown): void {
  if (value === undefined) return
  if (!Array.isArray(value)) {
    report('environmentVariables', `must be an array of {key, value, secret?}, got ${show(value)}`)
    return
  }
  const seen = new Set<string>()
  value.forEach((item, index) => {
    const at = `environmentVariables[${index}]`
    if (!isRecord(item)) {
      report(at, `must be {key, value, secret?}, got ${show(item)}`)
      return
    }
    checkKnownKeys(report, at, item, ['key', 'value', 'secret'])
    if (typeof item.key !== 'string' || !ENV_NAME_PATTERN.test(item.key)) {
      report(
        `${at}.key`,
        `must be a variable name (letters, digits and '_', not starting with a digit), got ${show(item.key)}`,
      )
    } else if (seen.has(item.key)) {
      report(`${at}.key`, `${item.key} is set twice`)
    } else seen.add(item.key)
    // The value is never shown: it may be a secret.
    if (typeof item.value !== 'string') report(`${at}.value`, 'must be a string')
    checkBoolean(report, `${at}.secret`, item.secret)
  })
}
