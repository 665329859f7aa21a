// The URL a job calls to report in, logged once per heartbeat when the agent starts.

import { hostname } from 'node:os'
import type { HeartbeatCheck } from '../model/checks.ts'

export interface HeartbeatPingUrl {
  logicalId: string
  name: string
  url: string
}

/**
 * Base URL of the ingress as jobs should call it. A wildcard bind address is not callable, so the
 * machine's host name stands in for it; a public URL (behind a proxy or a Service) wins when given.
 */
export function ingressBaseUrl(options: { host: string; port: number; publicUrl?: string }): string {
  if (options.publicUrl) return options.publicUrl.replace(/\/+$/, '')
  const wildcard = options.host === '0.0.0.0' || options.host === '::' || options.host === ''
  const host = wildcard ? hostname() : options.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`
}

export function heartbeatPingUrl(baseUrl: string, pingToken: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/ping/${encodeURIComponent(pingToken)}`
}

export function heartbeatPingUrls(
  checks: Pick<HeartbeatCheck, 'logicalId' | 'name' | 'pingToken'>[],
  baseUrl: string,
): HeartbeatPingUrl[] {
  return checks.map((check) => ({
    logicalId: check.logicalId,
    name: check.name,
    url: heartbeatPingUrl(baseUrl, check.pingToken),
  }))
}
