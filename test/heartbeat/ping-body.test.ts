import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { captureBody, keptBodyText } from '../../src/heartbeat/ping-body.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'

describe('ping body', () => {
  it('never cuts a UTF-8 character in half', () => {
    const head = Buffer.from(`${'a'.repeat(9)}é€`, 'utf8') // 9 + 2 + 3 bytes
    expect(keptBodyText(head, 10, createScrubber([]))).toBe('a'.repeat(9))
    expect(keptBodyText(head, 11, createScrubber([]))).toBe(`${'a'.repeat(9)}é`)
    expect(keptBodyText(head, 13, createScrubber([]))).toBe(`${'a'.repeat(9)}é`)
    expect(keptBodyText(head, 14, createScrubber([]))).toBe(`${'a'.repeat(9)}é€`)
  })

  it('reads only the head of a long body but counts all of it', async () => {
    const chunks = Array.from({ length: 100 }, () => Buffer.alloc(1000, 0x61))
    const captured = await captureBody(Readable.from(chunks), 10_000, 1_000_000)
    expect('tooLarge' in captured).toBe(false)
    if ('head' in captured) {
      expect(captured.totalBytes).toBe(100_000)
      expect(captured.head.length).toBeLessThan(20_000)
    }
  })

  it('stops at the request limit', async () => {
    const chunks = Array.from({ length: 10 }, () => Buffer.alloc(1000, 0x61))
    expect(await captureBody(Readable.from(chunks), 100, 5000)).toEqual({
      tooLarge: true,
      totalBytes: 5000 + 1000,
    })
  })
})
