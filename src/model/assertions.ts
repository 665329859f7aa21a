// Names of assertion sources and comparisons (Checkly's wire names), shared by the constructs that
// write assertions and the probes that evaluate them. The Assertion shape itself is in checks.ts.

export const Comparison = {
  EQUALS: 'EQUALS',
  NOT_EQUALS: 'NOT_EQUALS',
  LESS_THAN: 'LESS_THAN',
  GREATER_THAN: 'GREATER_THAN',
  CONTAINS: 'CONTAINS',
  NOT_CONTAINS: 'NOT_CONTAINS',
  IS_EMPTY: 'IS_EMPTY',
  NOT_EMPTY: 'NOT_EMPTY',
  IS_NULL: 'IS_NULL',
  NOT_NULL: 'NOT_NULL',
  HAS_KEY: 'HAS_KEY',
  NOT_HAS_KEY: 'NOT_HAS_KEY',
  HAS_VALUE: 'HAS_VALUE',
  NOT_HAS_VALUE: 'NOT_HAS_VALUE',
} as const
export type Comparison = (typeof Comparison)[keyof typeof Comparison]

/** Comparisons that take no target (the target is stored as ''). */
export const TARGETLESS_COMPARISONS: readonly Comparison[] = ['IS_EMPTY', 'NOT_EMPTY', 'IS_NULL', 'NOT_NULL']

export const AssertionSource = {
  /** URL, API: the HTTP status code. */
  STATUS_CODE: 'STATUS_CODE',
  /** URL, API: a header; property is the header name (empty: all headers), regex optionally captures. */
  HEADERS: 'HEADERS',
  /** URL, API: the body as text. */
  TEXT_BODY: 'TEXT_BODY',
  /** API: the body parsed as JSON; property is a JSONPath. */
  JSON_BODY: 'JSON_BODY',
  /** URL, API, DNS, TCP: milliseconds. */
  RESPONSE_TIME: 'RESPONSE_TIME',
  /** DNS: the response code name (NOERROR, NXDOMAIN, ...). */
  RESPONSE_CODE: 'RESPONSE_CODE',
  /** DNS: the answer section as dig-like text lines. */
  TEXT_ANSWER: 'TEXT_ANSWER',
  /** DNS: the answer as JSON; property is a JSONPath. */
  JSON_ANSWER: 'JSON_ANSWER',
  /** TCP: the bytes read after sending `data`, as text. */
  RESPONSE_DATA: 'RESPONSE_DATA',
  /** ICMP: round-trip milliseconds; property is avg, min, max or stdDev. */
  LATENCY: 'LATENCY',
  /** ICMP: percent of packets lost (0..100). */
  PACKET_LOSS: 'PACKET_LOSS',
} as const
export type AssertionSource = (typeof AssertionSource)[keyof typeof AssertionSource]

/** Which sources each check type accepts. */
export const ASSERTION_SOURCES_BY_TYPE = {
  URL: ['STATUS_CODE', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'],
  API: ['STATUS_CODE', 'HEADERS', 'TEXT_BODY', 'JSON_BODY', 'RESPONSE_TIME'],
  DNS: ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'],
  TCP: ['RESPONSE_DATA', 'RESPONSE_TIME'],
  ICMP: ['LATENCY', 'PACKET_LOSS'],
} as const satisfies Record<string, readonly AssertionSource[]>

export const ICMP_LATENCY_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const
export type IcmpLatencyProperty = (typeof ICMP_LATENCY_PROPERTIES)[number]
