import type { IcmpLatencyProperty } from '../model/assertions.ts'
import { NumericAssertionBuilder } from './assertion-builders.ts'

/** Assertions for IcmpMonitor: `IcmpAssertionBuilder.latency('avg').lessThan(100)`. */
export const IcmpAssertionBuilder = {
  /** Round-trip milliseconds over the run's pings. */
  latency: (property: IcmpLatencyProperty) => new NumericAssertionBuilder('LATENCY', property),
  /** Percent of pings lost, 0..100 (the thresholds decide degraded/failed; this asserts on it directly). */
  packetLoss: () => new NumericAssertionBuilder('PACKET_LOSS'),
} as const
