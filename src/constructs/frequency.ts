// How often a check runs, by Checkly's names. Values are names (serialisable, readable in errors);
// FREQUENCY_SECONDS turns them into the seconds the scheduler uses.

export const Frequency = {
  EVERY_10S: 'EVERY_10S',
  EVERY_20S: 'EVERY_20S',
  EVERY_30S: 'EVERY_30S',
  EVERY_1M: 'EVERY_1M',
  EVERY_2M: 'EVERY_2M',
  EVERY_5M: 'EVERY_5M',
  EVERY_10M: 'EVERY_10M',
  EVERY_15M: 'EVERY_15M',
  EVERY_30M: 'EVERY_30M',
  EVERY_1H: 'EVERY_1H',
  EVERY_2H: 'EVERY_2H',
  EVERY_3H: 'EVERY_3H',
  EVERY_6H: 'EVERY_6H',
  EVERY_12H: 'EVERY_12H',
  EVERY_24H: 'EVERY_24H',
} as const
export type Frequency = (typeof Frequency)[keyof typeof Frequency]

export const FREQUENCY_SECONDS: Readonly<Record<Frequency, number>> = {
  EVERY_10S: 10,
  EVERY_20S: 20,
  EVERY_30S: 30,
  EVERY_1M: 60,
  EVERY_2M: 120,
  EVERY_5M: 300,
  EVERY_10M: 600,
  EVERY_15M: 900,
  EVERY_30M: 1800,
  EVERY_1H: 3600,
  EVERY_2H: 7200,
  EVERY_3H: 10800,
  EVERY_6H: 21600,
  EVERY_12H: 43200,
  EVERY_24H: 86400,
}

/** Sub-minute frequencies: only the light uptime monitors (URL, TCP, DNS, ICMP) may run this often. */
export const HIGH_FREQUENCIES: readonly Frequency[] = ['EVERY_10S', 'EVERY_20S', 'EVERY_30S']

export const ALL_FREQUENCIES: readonly Frequency[] = Object.values(Frequency)

/** EVERY_1M ... EVERY_24H: the seed's list, and all that Playwright and API checks may use. */
export const MINUTE_FREQUENCIES: readonly Frequency[] = ALL_FREQUENCIES.filter(
  (f) => !HIGH_FREQUENCIES.includes(f),
)

/** Used when neither the check nor the project sets one (Checkly's default too). */
export const DEFAULT_FREQUENCY: Frequency = 'EVERY_10M'

export function isFrequency(value: unknown): value is Frequency {
  return typeof value === 'string' && (ALL_FREQUENCIES as readonly string[]).includes(value)
}
