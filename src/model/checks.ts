// The serialisable shape of every check, as the agent runs it. Constructs (monitors as code) and the
// hub both produce these objects; the scheduler, probes and runner only ever consume them. Option
// names follow Checkly's CLI where one exists, so users can move checks over unchanged.

export const CheckType = {
  URL: 'URL',
  DNS: 'DNS',
  TCP: 'TCP',
  ICMP: 'ICMP',
  HEARTBEAT: 'HEARTBEAT',
  API: 'API',
  MULTI_STEP: 'MULTI_STEP',
  BROWSER: 'BROWSER',
  PLAYWRIGHT: 'PLAYWRIGHT',
} as const
export type CheckType = (typeof CheckType)[keyof typeof CheckType]

/** Types the uptime flavor runs: everything else needs Playwright. */
export const UPTIME_CHECK_TYPES: readonly CheckType[] = ['URL', 'DNS', 'TCP', 'ICMP', 'HEARTBEAT']

export function isUptimeCheckType(type: CheckType): boolean {
  return UPTIME_CHECK_TYPES.includes(type)
}

export interface KeyValuePair {
  key: string
  value: string
}

export interface EnvironmentVariable {
  key: string
  value: string
  secret?: boolean
}

export const RetryStrategyType = {
  NONE: 'NONE',
  FIXED: 'FIXED',
  LINEAR: 'LINEAR',
  EXPONENTIAL: 'EXPONENTIAL',
} as const
export type RetryStrategyType = (typeof RetryStrategyType)[keyof typeof RetryStrategyType]

export interface RetryStrategy {
  type: RetryStrategyType
  /** Wait before the first retry; later waits grow by the strategy's type. */
  baseBackoffSeconds: number
  maxRetries: number
  /** No retry starts later than this after the first attempt. */
  maxDurationSeconds: number
  sameRegion: boolean
}

/** Checkly's assertion wire shape: every probe reports its assertions in this form. */
export interface Assertion {
  source: string
  property: string
  comparison: string
  target: string
  regex?: string | null
}

export type IpFamily = 'IPv4' | 'IPv6'

interface CheckBase {
  logicalId: string
  name: string
  description?: string
  activated: boolean
  muted: boolean
  tags: string[]
  /** How often the check runs. Heartbeats use their period here. */
  frequencySeconds: number
  locations: string[]
  privateLocations: string[]
  retryStrategy: RetryStrategy
  environmentVariables: EnvironmentVariable[]
  /** Overrides the per-type default timeout. */
  timeoutSeconds?: number
  /** The file the check was declared in, for diagnostics. */
  sourceFile?: string
}

export interface UrlRequest {
  url: string
  method: 'GET' | 'HEAD'
  followRedirects: boolean
  skipSSL: boolean
  ipFamily: IpFamily
  headers: KeyValuePair[]
  assertions: Assertion[]
}

export interface UrlCheck extends CheckBase {
  type: 'URL'
  request: UrlRequest
  degradedResponseTime: number
  maxResponseTime: number
}

export const DnsRecordType = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'HTTPS'] as const
export type DnsRecordType = (typeof DnsRecordType)[number]

export interface DnsRequest {
  query: string
  recordType: DnsRecordType
  /** Unset: the first resolver the OS is configured with. */
  nameServer?: string
  port: number
  protocol: 'UDP' | 'TCP'
  assertions: Assertion[]
}

export interface DnsCheck extends CheckBase {
  type: 'DNS'
  request: DnsRequest
  degradedResponseTime: number
  maxResponseTime: number
}

export interface TcpRequest {
  hostname: string
  port: number
  ipFamily: IpFamily
  /** Sent after connecting; the reply is then read and may be asserted on. */
  data?: string
  assertions: Assertion[]
}

export interface TcpCheck extends CheckBase {
  type: 'TCP'
  request: TcpRequest
  degradedResponseTime: number
  maxResponseTime: number
}

export interface IcmpRequest {
  hostname: string
  ipFamily: IpFamily
  pingCount: number
  assertions: Assertion[]
}

export interface IcmpCheck extends CheckBase {
  type: 'ICMP'
  request: IcmpRequest
  /** Percent of lost packets at which the run is degraded / failed. */
  degradedPacketLossThreshold: number
  maxPacketLossThreshold: number
}

export type TimeUnit = 'seconds' | 'minutes' | 'hours' | 'days'

export interface HeartbeatCheck extends CheckBase {
  type: 'HEARTBEAT'
  period: number
  periodUnit: TimeUnit
  grace: number
  graceUnit: TimeUnit
  /** The secret part of the ping URL; derived from the logicalId when not given. */
  pingToken: string
}

/** Test code: exactly one of the two. `entrypoint` is an absolute path once loaded. */
export interface CheckCode {
  entrypoint?: string
  content?: string
}

export const RuntimeId = ['2023.09', '2025.04', '2026.04'] as const
export type RuntimeId = (typeof RuntimeId)[number]
export const NEWEST_RUNTIME: RuntimeId = '2026.04'

export interface MultiStepCheck extends CheckBase {
  type: 'MULTI_STEP'
  code: CheckCode
  runtimeId: RuntimeId
}

export interface BrowserCheck extends CheckBase {
  type: 'BROWSER'
  code: CheckCode
  runtimeId: RuntimeId
}

export interface PlaywrightCheckSuite extends CheckBase {
  type: 'PLAYWRIGHT'
  /** Absolute path of the suite's playwright.config.* file; its directory is the suite. */
  playwrightConfigPath: string
  installCommand?: string
  testCommand?: string
  pwProjects: string[]
  pwTags: string[]
}

export const HttpMethod = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
export type HttpMethod = (typeof HttpMethod)[number]
export const BodyType = ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] as const
export type BodyType = (typeof BodyType)[number]

export interface ApiRequest {
  url: string
  method: HttpMethod
  headers: KeyValuePair[]
  queryParameters: KeyValuePair[]
  body: string
  bodyType: BodyType
  basicAuth?: { username: string; password: string }
  followRedirects: boolean
  skipSSL: boolean
  ipFamily: IpFamily
  assertions: Assertion[]
}

export interface ApiCheck extends CheckBase {
  type: 'API'
  request: ApiRequest
  degradedResponseTime: number
  maxResponseTime: number
  shouldFail: boolean
  setupScript?: CheckCode
  tearDownScript?: CheckCode
  runtimeId: RuntimeId
}

export type CheckDefinition =
  | UrlCheck
  | DnsCheck
  | TcpCheck
  | IcmpCheck
  | HeartbeatCheck
  | ApiCheck
  | MultiStepCheck
  | BrowserCheck
  | PlaywrightCheckSuite

/** Default job timeouts in seconds (issue: agent core). */
export function defaultTimeoutSeconds(type: CheckType): number {
  if (type === 'PLAYWRIGHT') return 3600
  if (type === 'MULTI_STEP' || type === 'BROWSER' || type === 'API') return 240
  return 30
}

export function timeoutSecondsOf(check: CheckDefinition): number {
  return check.timeoutSeconds ?? defaultTimeoutSeconds(check.type)
}
