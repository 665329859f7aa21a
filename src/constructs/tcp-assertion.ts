import { GeneralAssertionBuilder, NumericAssertionBuilder } from './assertion-builders.ts'

/** Assertions for TcpMonitor: `TcpAssertionBuilder.responseData().contains('OK')`. */
export const TcpAssertionBuilder = {
  /** What the server sent back after `request.data`, as text. */
  responseData: (property?: string) => new GeneralAssertionBuilder('RESPONSE_DATA', property),
  /** Milliseconds to connect (and, with `data`, to read the reply). */
  responseTime: () => new NumericAssertionBuilder('RESPONSE_TIME'),
} as const
