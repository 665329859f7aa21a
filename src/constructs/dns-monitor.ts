// DnsMonitor: one query to a name server, pass/degrade/fail on time and assertions on the answer.

import { type Assertion, type DnsCheck, DnsRecordType } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import type { Report } from './diagnostics.ts'
import { ALL_FREQUENCIES, type Frequency } from './frequency.ts'
import { resolveResponseTimes, validateResponseTimes } from './response-times.ts'
import { validateAssertions } from './validate-assertions.ts'
import { checkHostname, checkInteger, checkOneOf, checkRequestObject } from './values.ts'

export interface DnsMonitorRequest {
  /** The name to look up. */
  query: string
  /** Default A. */
  recordType?: DnsRecordType
  /** Default: the first resolver the agent's OS is configured with. */
  nameServer?: string
  /** Default 53. */
  port?: number
  /** Default UDP. */
  protocol?: 'UDP' | 'TCP'
  assertions?: Assertion[]
}

export interface DnsMonitorProps extends CheckProps {
  request: DnsMonitorRequest
  /** ms; default 500, at most 5000, not above maxResponseTime. */
  degradedResponseTime?: number
  /** ms; default 1000, at most 5000. */
  maxResponseTime?: number
}

export const DNS_RESPONSE_TIMES = { degradedDefault: 500, maxDefault: 1000, cap: 5000 } as const
const REQUEST_KEYS = ['query', 'recordType', 'nameServer', 'port', 'protocol', 'assertions'] as const

export class DnsMonitor extends Check<DnsMonitorProps> {
  get type() {
    return 'DNS' as const
  }
  protected get kind() {
    return 'DNS monitors'
  }
  protected get ownProps() {
    return ['request', 'degradedResponseTime', 'maxResponseTime']
  }
  protected get frequencies(): readonly Frequency[] {
    return ALL_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>): void {
    validateResponseTimes(report, props, DNS_RESPONSE_TIMES)
    const request = checkRequestObject(report, props.request, REQUEST_KEYS)
    if (!request) return
    checkHostname(report, 'request.query', request.query)
    checkOneOf(report, 'request.recordType', request.recordType, DnsRecordType)
    if (request.nameServer !== undefined) checkHostname(report, 'request.nameServer', request.nameServer)
    checkInteger(report, 'request.port', request.port, 1, 65535)
    checkOneOf(report, 'request.protocol', request.protocol, ['UDP', 'TCP'])
    validateAssertions(report, 'request.assertions', request.assertions, 'DNS')
  }

  toDefinition(context: CheckContext): DnsCheck {
    const request = this.props.request
    const { degraded, max } = resolveResponseTimes(this.props, DNS_RESPONSE_TIMES)
    const definition: DnsCheck = {
      ...this.commonDefinition(context),
      type: 'DNS',
      request: {
        query: request.query,
        recordType: request.recordType ?? 'A',
        port: request.port ?? 53,
        protocol: request.protocol ?? 'UDP',
        assertions: [...(request.assertions ?? [])],
      },
      degradedResponseTime: degraded,
      maxResponseTime: max,
    }
    if (request.nameServer !== undefined) definition.request.nameServer = request.nameServer
    return definition
  }
}
