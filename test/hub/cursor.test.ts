import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from '../../src/hub/store/cursor.ts'

describe('page cursors', () => {
  it('round-trip every position', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 52 }), fc.stringMatching(/^[\w-]{1,100}$/), (time, id) => {
        expect(decodeCursor(encodeCursor({ time, id }))).toEqual({ time, id })
      }),
    )
  })

  it('refuse what the hub did not issue', () => {
    for (const text of [
      'garbage',
      '',
      'MTIz',
      Buffer.from('12:a b').toString('base64url'),
      `${encodeCursor({ time: 1, id: 'a' })}=`,
    ]) {
      expect(decodeCursor(text), text).toBeUndefined()
    }
  })
})
