import type { TcpCheck } from '../../src/model/checks.ts'
import { NO_RETRIES } from '../helpers/definitions.ts'

export function tcpMonitor(
  request: Partial<TcpCheck['request']>,
  limits: Partial<Pick<TcpCheck, 'degradedResponseTime' | 'maxResponseTime'>> = {},
): TcpCheck {
  return {
    type: 'TCP',
    logicalId: 'tcp-test',
    name: 'TCP test',
    activated: true,
    muted: false,
    tags: [],
    frequencySeconds: 60,
    locations: [],
    privateLocations: [],
    retryStrategy: NO_RETRIES,
    environmentVariables: [],
    request: { hostname: '127.0.0.1', port: 1, ipFamily: 'IPv4', assertions: [], ...request },
    degradedResponseTime: 4000,
    maxResponseTime: 5000,
    ...limits,
  }
}
