import { GeneralAssertionBuilder, NumericAssertionBuilder } from './assertion-builders.ts'

/** Assertions for DnsMonitor: `DnsAssertionBuilder.responseCode().equals('NOERROR')`. */
export const DnsAssertionBuilder = {
  /** NOERROR, NXDOMAIN, SERVFAIL, REFUSED, ... */
  responseCode: () => new GeneralAssertionBuilder('RESPONSE_CODE'),
  responseTime: () => new NumericAssertionBuilder('RESPONSE_TIME'),
  /** The answer section as dig-like lines; `property` is an optional regex capture. */
  textAnswer: (property?: string) => new GeneralAssertionBuilder('TEXT_ANSWER', property),
  /** The answer as JSON; `property` is a JSONPath such as `$.Answer[0].data`. */
  jsonAnswer: (property?: string) => new GeneralAssertionBuilder('JSON_ANSWER', property),
} as const
