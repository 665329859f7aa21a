// Builders of CheckDefinitions for tests that exercise the agent without the construct layer.

import type { CheckDefinition, RetryStrategy, UrlCheck } from '../../src/model/checks.ts'

export const NO_RETRIES: RetryStrategy = {
  type: 'NONE',
  baseBackoffSeconds: 0,
  maxRetries: 0,
  maxDurationSeconds: 600,
  sameRegion: true,
}

/** The fields every kind of check has, with the quiet defaults tests want (no retries, activated). */
export function baseFields(logicalId: string, name = logicalId) {
  return {
    logicalId,
    name,
    activated: true,
    muted: false,
    tags: [] as string[],
    frequencySeconds: 60,
    locations: [] as string[],
    privateLocations: [] as string[],
    retryStrategy: NO_RETRIES,
    environmentVariables: [] as { key: string; value: string; secret?: boolean }[],
  }
}

/** A plain GET of `url` over IPv4, redirects followed, nothing asserted beyond the defaults. */
export function urlRequest(url: string): UrlCheck['request'] {
  return {
    url,
    method: 'GET',
    followRedirects: true,
    skipSSL: false,
    ipFamily: 'IPv4',
    headers: [],
    assertions: [],
  }
}

export function urlCheck(logicalId: string, overrides: Partial<UrlCheck> = {}): UrlCheck {
  return {
    type: 'URL',
    ...baseFields(logicalId, `URL ${logicalId}`),
    request: urlRequest('http://127.0.0.1:9/'),
    degradedResponseTime: 3000,
    maxResponseTime: 5000,
    ...overrides,
  }
}

export function withType<T extends CheckDefinition['type']>(check: UrlCheck, type: T): CheckDefinition {
  return { ...check, type } as unknown as CheckDefinition
}
