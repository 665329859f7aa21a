import { GeneralAssertionBuilder, NumericAssertionBuilder } from './assertion-builders.ts'

/** Assertions for ApiCheck (Checkly's AssertionBuilder): `AssertionBuilder.jsonBody('$.ok').equals(true)`. */
export const AssertionBuilder = {
  statusCode: () => new NumericAssertionBuilder('STATUS_CODE'),
  responseTime: () => new NumericAssertionBuilder('RESPONSE_TIME'),
  headers: (name?: string, regex?: string) => new GeneralAssertionBuilder('HEADERS', name, regex),
  textBody: (property?: string) => new GeneralAssertionBuilder('TEXT_BODY', property),
  /** `path` is a JSONPath such as `$.items.length`. */
  jsonBody: (path?: string) => new GeneralAssertionBuilder('JSON_BODY', path),
} as const
