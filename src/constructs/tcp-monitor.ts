// TcpMonitor: connect (optionally send `data` and read the reply), pass/degrade/fail on time and assertions.

import type { Assertion, IpFamily, TcpCheck } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import type { Report } from './diagnostics.ts'
import { ALL_FREQUENCIES, type Frequency } from './frequency.ts'
import { resolveResponseTimes, validateResponseTimes } from './response-times.ts'
import { validateAssertions } from './validate-assertions.ts'
import { checkHostname, checkInteger, checkOneOf, checkRequestObject, checkString } from './values.ts'

export interface TcpMonitorRequest {
  hostname: string
  /** 1..65535 */
  port: number
  ipFamily?: IpFamily
  /** Sent after connecting; the reply can then be asserted on with TcpAssertionBuilder.responseData(). */
  data?: string
  assertions?: Assertion[]
}

export interface TcpMonitorProps extends CheckProps {
  request: TcpMonitorRequest
  /** ms; default 4000, at most 5000, not above maxResponseTime. */
  degradedResponseTime?: number
  /** ms; default 5000, at most 5000. */
  maxResponseTime?: number
}

export const TCP_RESPONSE_TIMES = { degradedDefault: 4000, maxDefault: 5000, cap: 5000 } as const
const REQUEST_KEYS = ['hostname', 'port', 'ipFamily', 'data', 'assertions'] as const

export class TcpMonitor extends Check<TcpMonitorProps> {
  get type() {
    return 'TCP' as const
  }
  protected get kind() {
    return 'TCP monitors'
  }
  protected get ownProps() {
    return ['request', 'degradedResponseTime', 'maxResponseTime']
  }
  protected get frequencies(): readonly Frequency[] {
    return ALL_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>): void {
    validateResponseTimes(report, props, TCP_RESPONSE_TIMES)
    const request = checkRequestObject(report, props.request, REQUEST_KEYS)
    if (!request) return
    checkHostname(report, 'request.hostname', request.hostname)
    if (request.port === undefined) report('request.port', 'is required (1..65535)')
    checkInteger(report, 'request.port', request.port, 1, 65535)
    checkOneOf(report, 'request.ipFamily', request.ipFamily, ['IPv4', 'IPv6'])
    checkString(report, 'request.data', request.data)
    validateAssertions(report, 'request.assertions', request.assertions, 'TCP')
  }

  toDefinition(context: CheckContext): TcpCheck {
    const request = this.props.request
    const { degraded, max } = resolveResponseTimes(this.props, TCP_RESPONSE_TIMES)
    const definition: TcpCheck = {
      ...this.commonDefinition(context),
      type: 'TCP',
      request: {
        hostname: request.hostname,
        port: request.port,
        ipFamily: request.ipFamily ?? 'IPv4',
        assertions: [...(request.assertions ?? [])],
      },
      degradedResponseTime: degraded,
      maxResponseTime: max,
    }
    if (request.data !== undefined) definition.request.data = request.data
    return definition
  }
}
