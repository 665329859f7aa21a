import { GeneralAssertionBuilder, NumericAssertionBuilder } from './assertion-builders.ts'

/** Assertions for UrlMonitor: `UrlAssertionBuilder.statusCode().equals(200)`. */
export const UrlAssertionBuilder = {
  statusCode: () => new NumericAssertionBuilder('STATUS_CODE'),
  /** Milliseconds from the start of the request to the end of the response. */
  responseTime: () => new NumericAssertionBuilder('RESPONSE_TIME'),
  /** A header by name (case-insensitive); `regex` optionally picks its first capture group. */
  headers: (name?: string, regex?: string) => new GeneralAssertionBuilder('HEADERS', name, regex),
  textBody: (property?: string) => new GeneralAssertionBuilder('TEXT_BODY', property),
} as const
