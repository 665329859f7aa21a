// The package `outpost`: what check files import (`import { UrlMonitor, Frequency } from 'outpost'`).
// Check files are often plain JavaScript, so only runtime values and types are exported here; the
// agent's internals are not part of this surface.

export { AssertionBuilder } from './constructs/api-assertion.ts'
export { ApiCheck, type ApiCheckProps, type ApiCheckRequest } from './constructs/api-check.ts'
export { GeneralAssertionBuilder, NumericAssertionBuilder } from './constructs/assertion-builders.ts'
export { BrowserCheck, type BrowserCheckProps } from './constructs/browser-check.ts'
export { Check, type CheckContext, type CheckProps, type ProjectDefaults } from './constructs/check.ts'
export { type Diagnostic, Diagnostics, formatDiagnostic } from './constructs/diagnostics.ts'
export { DnsAssertionBuilder } from './constructs/dns-assertion.ts'
export { DnsMonitor, type DnsMonitorProps, type DnsMonitorRequest } from './constructs/dns-monitor.ts'
export { FREQUENCY_SECONDS, Frequency } from './constructs/frequency.ts'
export { HeartbeatMonitor, type HeartbeatMonitorProps } from './constructs/heartbeat-monitor.ts'
export { IcmpAssertionBuilder } from './constructs/icmp-assertion.ts'
export { IcmpMonitor, type IcmpMonitorProps, type IcmpMonitorRequest } from './constructs/icmp-monitor.ts'
export { LOCATIONS, type Location } from './constructs/locations.ts'
export { MultiStepCheck, type MultiStepCheckProps } from './constructs/multi-step-check.ts'
export { PlaywrightCheckSuite, type PlaywrightCheckSuiteProps } from './constructs/playwright-check-suite.ts'
export { defineConfig, type OutpostConfig } from './constructs/project-config.ts'
export { RetryStrategyBuilder, type RetryStrategyOptions } from './constructs/retry-strategy.ts'
export { TcpAssertionBuilder } from './constructs/tcp-assertion.ts'
export { TcpMonitor, type TcpMonitorProps, type TcpMonitorRequest } from './constructs/tcp-monitor.ts'
export { UrlAssertionBuilder } from './constructs/url-assertion.ts'
export { UrlMonitor, type UrlMonitorProps, type UrlMonitorRequest } from './constructs/url-monitor.ts'
export { AssertionSource, Comparison } from './model/assertions.ts'
export type {
  Assertion,
  CheckCode,
  EnvironmentVariable,
  IpFamily,
  KeyValuePair,
  RetryStrategy,
  RuntimeId,
  TimeUnit,
} from './model/checks.ts'
