import { describe, expect, it } from 'vitest'
import { FREQUENCY_SECONDS, Frequency, formatDiagnostic } from '../../src/index.ts'

describe('Frequency', () => {
  it('maps every name to its seconds', () => {
    expect(Object.keys(Frequency)).toEqual(Object.keys(FREQUENCY_SECONDS))
    expect(FREQUENCY_SECONDS).toMatchObject({
      EVERY_10S: 10,
      EVERY_1M: 60,
      EVERY_10M: 600,
      EVERY_3H: 10800,
      EVERY_24H: 86400,
    })
    for (const [name, seconds] of Object.entries(FREQUENCY_SECONDS)) {
      const match = /^EVERY_(\d+)([SMH])$/.exec(name)
      const unit = { S: 1, M: 60, H: 3600 }[match?.[2] as 'S' | 'M' | 'H']
      expect(seconds).toBe(Number(match?.[1]) * unit)
    }
  })
})

describe('formatDiagnostic', () => {
  it('prints file: logicalId: property: reason, leaving out what a problem lacks', () => {
    expect(
      formatDiagnostic({ file: 'a.check.ts', logicalId: 'x', property: 'request.port', reason: 'bad' }),
    ).toBe('a.check.ts: x: request.port: bad')
    expect(formatDiagnostic({ file: 'a.check.ts', reason: 'failed to load: SyntaxError' })).toBe(
      'a.check.ts: failed to load: SyntaxError',
    )
  })
})
