// IcmpMonitor: `pingCount` echo requests; degraded/failed by the percent of packets lost.

import type { Assertion, IcmpCheck, IpFamily } from '../model/checks.ts'
import { Check, type CheckContext, type CheckProps } from './check.ts'
import type { Report } from './diagnostics.ts'
import { ALL_FREQUENCIES, type Frequency } from './frequency.ts'
import { validateAssertions } from './validate-assertions.ts'
import { checkHostname, checkInteger, checkOneOf, checkRequestObject } from './values.ts'

export interface IcmpMonitorRequest {
  hostname: string
  ipFamily?: IpFamily
  /** 1..50, default 10. */
  pingCount?: number
  assertions?: Assertion[]
}

export interface IcmpMonitorProps extends CheckProps {
  request: IcmpMonitorRequest
  /** Percent lost (0..100) from which a run is degraded; default 10, not above maxPacketLossThreshold. */
  degradedPacketLossThreshold?: number
  /** Percent lost (0..100) from which a run fails; default 20. */
  maxPacketLossThreshold?: number
}

export const ICMP_DEFAULTS = {
  pingCount: 10,
  degradedPacketLossThreshold: 10,
  maxPacketLossThreshold: 20,
} as const
const REQUEST_KEYS = ['hostname', 'ipFamily', 'pingCount', 'assertions'] as const

export class IcmpMonitor extends Check<IcmpMonitorProps> {
  get type() {
    return 'ICMP' as const
  }
  protected get kind() {
    return 'ICMP monitors'
  }
  protected get ownProps() {
    return ['request', 'degradedPacketLossThreshold', 'maxPacketLossThreshold']
  }
  protected get frequencies(): readonly Frequency[] {
    return ALL_FREQUENCIES
  }

  protected validateOwn(report: Report, props: Record<string, unknown>): void {
    const degradedOk = checkInteger(
      report,
      'degradedPacketLossThreshold',
      props.degradedPacketLossThreshold,
      0,
      100,
      '%',
    )
    const maxOk = checkInteger(report, 'maxPacketLossThreshold', props.maxPacketLossThreshold, 0, 100, '%')
    if (degradedOk && maxOk) {
      const { degraded, max } = this.#thresholds()
      if (degraded > max) {
        report(
          'degradedPacketLossThreshold',
          `must not exceed maxPacketLossThreshold (${max}%), got ${degraded}%`,
        )
      }
    }
    const request = checkRequestObject(report, props.request, REQUEST_KEYS)
    if (!request) return
    checkHostname(report, 'request.hostname', request.hostname)
    checkOneOf(report, 'request.ipFamily', request.ipFamily, ['IPv4', 'IPv6'])
    checkInteger(report, 'request.pingCount', request.pingCount, 1, 50)
    validateAssertions(report, 'request.assertions', request.assertions, 'ICMP')
  }

  #thresholds(): { degraded: number; max: number } {
    return {
      degraded: this.props.degradedPacketLossThreshold ?? ICMP_DEFAULTS.degradedPacketLossThreshold,
      max: this.props.maxPacketLossThreshold ?? ICMP_DEFAULTS.maxPacketLossThreshold,
    }
  }

  toDefinition(context: CheckContext): IcmpCheck {
    const request = this.props.request
    const { degraded, max } = this.#thresholds()
    return {
      ...this.commonDefinition(context),
      type: 'ICMP',
      request: {
        hostname: request.hostname,
        ipFamily: request.ipFamily ?? 'IPv4',
        pingCount: request.pingCount ?? ICMP_DEFAULTS.pingCount,
        assertions: [...(request.assertions ?? [])],
      },
      degradedPacketLossThreshold: degraded,
      maxPacketLossThreshold: max,
    }
  }
}
