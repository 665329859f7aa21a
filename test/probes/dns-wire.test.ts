// The query encoder reuses one encoded message per question and writes a fresh id into a copy:
// every message it hands out must decode to the question asked, with its own id, and a copy must
// never share bytes with another (a later id write would otherwise change a query in flight).

import packet from 'dns-packet'
import { describe, expect, it } from 'vitest'
import { createQueryEncoder, EDNS_UDP_SIZE, encodeQuery } from '../../src/probes/dns/wire.ts'

describe('createQueryEncoder', () => {
  it('hands out messages that decode to the question, with the id it reports', () => {
    const encode = createQueryEncoder()
    for (const [name, type] of [
      ['example.test', 'A'],
      ['example.test', 'AAAA'],
      ['mail.example.test', 'MX'],
      ['example.test', 'A'],
    ] as const) {
      const query = encode(name, type)
      const decoded = packet.decode(query.bytes)
      expect(decoded.id).toBe(query.id)
      expect(decoded.questions).toEqual([{ name, type, class: 'IN' }])
      expect(decoded.flag_rd).toBe(true)
      const opt = decoded.additionals?.[0] as { type: string; udpPayloadSize: number } | undefined
      expect(opt?.type).toBe('OPT')
      expect(opt?.udpPayloadSize).toBe(EDNS_UDP_SIZE)
    }
  })

  it('differs from a fresh encoding only in the id', () => {
    const encode = createQueryEncoder()
    encode('example.test', 'TXT')
    const reused = encode('example.test', 'TXT')
    const fresh = encodeQuery('example.test', 'TXT')
    expect(reused.bytes.subarray(2)).toEqual(fresh.bytes.subarray(2))
  })

  it('gives every query a buffer of its own', () => {
    const encode = createQueryEncoder()
    const first = encode('example.test', 'A')
    const firstBytes = Buffer.from(first.bytes)
    const ids = new Set<number>([first.id])
    for (let i = 0; i < 200; i++) ids.add(encode('example.test', 'A').id)
    expect(first.bytes).toEqual(firstBytes)
    // 201 draws from 65,536 ids: a repeat now and then, never only a handful of values.
    expect(ids.size).toBeGreaterThan(150)
  })

  it('keeps answering correctly past its capacity', () => {
    const encode = createQueryEncoder(4)
    for (let i = 0; i < 20; i++) {
      const name = `host-${i}.example.test`
      const decoded = packet.decode(encode(name, 'A').bytes)
      expect(decoded.questions?.[0]?.name).toBe(name)
    }
  })
})
