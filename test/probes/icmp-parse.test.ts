// Parsing of iputils ping output through node-ping's parser, with its strings and 'unknown' turned
// into numbers and nulls. The inputs follow iputils-ping 20221126's output format.

import { describe, expect, it } from 'vitest'
import { parsePingOutput, toNumberOrNull } from '../../src/probes/icmp-parse.ts'

const lossy = `PING 198.18.0.2 (198.18.0.2) 56(84) bytes of data.
64 bytes from 198.18.0.2: icmp_seq=1 ttl=64 time=20.4 ms
64 bytes from 198.18.0.2: icmp_seq=3 ttl=64 time=21.1 ms
64 bytes from 198.18.0.2: icmp_seq=4 ttl=64 time=20.2 ms

--- 198.18.0.2 ping statistics ---
4 packets transmitted, 3 received, 25% packet loss, time 604ms
rtt min/avg/max/mdev = 20.213/20.566/21.098/0.377 ms
`

const unreachable = `PING 198.18.0.5 (198.18.0.5) 56(84) bytes of data.
From 198.18.0.1 icmp_seq=1 Destination Host Unreachable
From 198.18.0.1 icmp_seq=2 Destination Host Unreachable

--- 198.18.0.5 ping statistics ---
3 packets transmitted, 0 received, +2 errors, 100% packet loss, time 2041ms
`

describe('parsePingOutput', () => {
  it('turns a lossy run into numbers', () => {
    expect(parsePingOutput('198.18.0.2', lossy)).toEqual({
      address: '198.18.0.2',
      transmitted: 4,
      received: 3,
      packetLoss: 25,
      min: 20.213,
      avg: 20.566,
      max: 21.098,
      stdDev: 0.377,
      rtts: [20.4, 21.1, 20.2],
    })
  })

  it('gives null latencies and 100% loss when nothing came back', () => {
    expect(parsePingOutput('198.18.0.5', unreachable)).toMatchObject({
      transmitted: 3,
      received: 0,
      packetLoss: 100,
      min: null,
      avg: null,
      max: null,
      stdDev: null,
      rtts: [],
    })
  })

  it('computes loss from the counts, which are exact, not from the rounded percentage', () => {
    const out = lossy.replace(
      '4 packets transmitted, 3 received, 25%',
      '3 packets transmitted, 2 received, 33%',
    )
    expect(parsePingOutput('198.18.0.2', out).packetLoss).toBe(33.333)
  })

  it('reads the IPv6 header form', () => {
    const v6 = `PING ::1(::1) 56 data bytes
64 bytes from ::1: icmp_seq=1 ttl=64 time=0.029 ms

--- ::1 ping statistics ---
1 packets transmitted, 1 received, 0% packet loss, time 0ms
rtt min/avg/max/mdev = 0.029/0.029/0.029/0.000 ms
`
    expect(parsePingOutput('::1', v6)).toMatchObject({ address: '::1', packetLoss: 0, avg: 0.029, stdDev: 0 })
  })

  it('has no address or figures for empty output (ping failed before sending)', () => {
    expect(parsePingOutput('nosuch.invalid', '')).toEqual({
      address: null,
      transmitted: null,
      received: null,
      packetLoss: null,
      min: null,
      avg: null,
      max: null,
      stdDev: null,
      rtts: [],
    })
  })
})

describe('toNumberOrNull', () => {
  it('maps node-ping figures', () => {
    expect(toNumberOrNull('0.292')).toBe(0.292)
    expect(toNumberOrNull('unknown')).toBeNull()
    expect(toNumberOrNull(12.5)).toBe(12.5)
    expect(toNumberOrNull(Number.NaN)).toBeNull()
    expect(toNumberOrNull('')).toBeNull()
    expect(toNumberOrNull(undefined)).toBeNull()
  })
})
