// A DNS server of our own on dns-packet, UDP and TCP on the same loopback port. It answers from a
// zone given by the test, says NXDOMAIN for anything else, can set the TC bit on UDP answers for
// chosen names (the full answer then comes over TCP), stay silent, or answer late.

import dgram from 'node:dgram'
import { Resolver } from 'node:dns/promises'
import net from 'node:net'
import packet from 'dns-packet'
import type { HostLookup } from '../../src/probes/net/timed-connect.ts'

/** Records keyed by "name TYPE" (e.g. "example.test A"); TYPE may be UNKNOWN_65 for HTTPS. */
export type Zone = Record<string, packet.Answer[]>

export interface DnsServerOptions {
  zone: Zone
  /** Names whose UDP answers are truncated (TC bit, no records). */
  truncateOverUdp?: ReadonlySet<string>
  /** Names never answered. */
  silent?: ReadonlySet<string>
  /** Milliseconds to wait before answering. */
  delayMs?: number
}

export interface TestDnsServer {
  port: number
  queries: { transport: 'udp' | 'tcp'; name: string; type: string }[]
  close(): Promise<void>
}

export async function startDnsServer(options: DnsServerOptions): Promise<TestDnsServer> {
  const queries: TestDnsServer['queries'] = []
  const answer = (query: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined => {
    let request: packet.DecodedPacket
    try {
      request = packet.decode(query)
    } catch {
      return undefined // not DNS (a traceroute probe, say)
    }
    const question = request.questions?.[0]
    if (!question) return undefined
    queries.push({ transport, name: question.name, type: question.type })
    if (options.silent?.has(question.name)) return undefined
    const records = options.zone[`${question.name} ${question.type}`]
    const known = Object.keys(options.zone).some((key) => key.startsWith(`${question.name} `))
    const truncate = transport === 'udp' && options.truncateOverUdp?.has(question.name)
    let flags = packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | packet.AUTHORITATIVE_ANSWER
    if (truncate) flags |= packet.TRUNCATED_RESPONSE
    if (!known) flags |= 3 // NXDOMAIN
    return packet.encode({
      type: 'response',
      id: request.id,
      flags,
      questions: [question],
      answers: truncate ? [] : (records ?? []),
    })
  }
  const later = (fn: () => void): void => {
    if (options.delayMs) setTimeout(fn, options.delayMs)
    else fn()
  }

  const onMessage = (message: Buffer, remote: dgram.RemoteInfo): void => {
    const reply = answer(message, 'udp')
    if (reply) later(() => udp.send(reply, remote.port, remote.address))
  }
  let udp = dgram.createSocket('udp4')
  udp.on('message', onMessage)
  const sockets = new Set<net.Socket>()
  const tcp = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffered = Buffer.alloc(0)
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk])
      while (buffered.length >= 2 && buffered.length >= buffered.readUInt16BE(0) + 2) {
        const length = buffered.readUInt16BE(0)
        const reply = answer(buffered.subarray(2, 2 + length), 'tcp')
        buffered = buffered.subarray(2 + length)
        if (reply) {
          const prefix = Buffer.alloc(2)
          prefix.writeUInt16BE(reply.length)
          later(() => socket.write(Buffer.concat([prefix, reply])))
        }
      }
    })
  })
  // Same port number for TCP as for UDP, like a real name server: bind UDP on a free port, then
  // TCP on the same number, and start over (bounded) when TCP finds it taken.
  let port = 0
  for (let attempt = 0; ; attempt++) {
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
    port = udp.address().port
    const listened = await new Promise<boolean>((resolve) => {
      const onError = (): void => resolve(false)
      tcp.once('error', onError)
      tcp.listen(port, '127.0.0.1', () => {
        tcp.off('error', onError)
        resolve(true)
      })
    })
    if (listened) break
    if (attempt >= 20) throw new Error('no port free for both UDP and TCP on 127.0.0.1')
    await new Promise<void>((resolve) => udp.close(() => resolve()))
    udp = dgram.createSocket('udp4')
    udp.on('message', onMessage)
  }
  return {
    port,
    queries,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => tcp.close(() => resolve()))
      await new Promise<void>((resolve) => udp.close(() => resolve()))
    },
  }
}

/** A HostLookup that asks the given loopback DNS server (so tests never reach the host's resolver). */
export function loopbackLookup(port: number): HostLookup {
  const resolver = new Resolver({ timeout: 2000, tries: 1 })
  resolver.setServers([`127.0.0.1:${port}`])
  return async (hostname, family) => {
    const addresses = family === 6 ? await resolver.resolve6(hostname) : await resolver.resolve4(hostname)
    const address = addresses[0]
    if (address === undefined)
      throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENODATA' })
    return { address, family }
  }
}

/** A small zone used by several tests. */
export function sampleZone(): Zone {
  const a = (name: string, data: string): packet.Answer => ({ type: 'A', name, ttl: 60, class: 'IN', data })
  const bigTxt: packet.Answer[] = Array.from({ length: 20 }, (_, i) => ({
    type: 'TXT',
    name: 'big.example.test',
    ttl: 60,
    class: 'IN',
    data: `record-${i}-${'x'.repeat(40)}`,
  }))
  return {
    'example.test A': [a('example.test', '127.0.0.1')],
    'example.test AAAA': [{ type: 'AAAA', name: 'example.test', ttl: 60, class: 'IN', data: '::1' }],
    'www.example.test CNAME': [
      { type: 'CNAME', name: 'www.example.test', ttl: 60, class: 'IN', data: 'example.test' },
    ],
    'example.test MX': [
      {
        type: 'MX',
        name: 'example.test',
        ttl: 60,
        class: 'IN',
        data: { preference: 10, exchange: 'mail.example.test' },
      },
    ],
    'example.test NS': [{ type: 'NS', name: 'example.test', ttl: 60, class: 'IN', data: 'ns1.example.test' }],
    'example.test TXT': [{ type: 'TXT', name: 'example.test', ttl: 60, class: 'IN', data: 'v=spf1 -all' }],
    'example.test SOA': [
      {
        type: 'SOA',
        name: 'example.test',
        ttl: 60,
        class: 'IN',
        data: {
          mname: 'ns1.example.test',
          rname: 'hostmaster.example.test',
          serial: 2026112201,
          refresh: 3600,
          retry: 600,
          expire: 86400,
          minimum: 60,
        },
      },
    ],
    'example.test UNKNOWN_65': [
      {
        type: 'UNKNOWN_65' as 'A',
        name: 'example.test',
        ttl: 60,
        class: 'IN',
        data: httpsRdata() as unknown as string,
      },
    ],
    'big.example.test TXT': bigTxt,
  }
}

/** HTTPS rdata: priority 1, target ".", alpn="h2,h3", port=8443, ipv4hint=127.0.0.1 (RFC 9460 wire form). */
function httpsRdata(): Buffer {
  const alpn = Buffer.from([2, ...Buffer.from('h2'), 2, ...Buffer.from('h3')])
  const param = (key: number, value: Buffer): Buffer => {
    const head = Buffer.alloc(4)
    head.writeUInt16BE(key, 0)
    head.writeUInt16BE(value.length, 2)
    return Buffer.concat([head, value])
  }
  const port = Buffer.alloc(2)
  port.writeUInt16BE(8443)
  return Buffer.concat([
    Buffer.from([0, 1, 0]),
    param(1, alpn),
    param(3, port),
    param(4, Buffer.from([127, 0, 0, 1])),
  ])
}

/** A port number free on 127.0.0.1 for both UDP and TCP right now (for servers we do not write). */
export async function freeDnsPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = dgram.createSocket('udp4')
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
    const { port } = udp.address()
    const tcp = net.createServer()
    const free = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false))
      tcp.listen(port, '127.0.0.1', () => resolve(true))
    })
    await new Promise<void>((resolve) => udp.close(() => resolve()))
    if (free) {
      await new Promise<void>((resolve) => tcp.close(() => resolve()))
      return port
    }
  }
  throw new Error('no port free for both UDP and TCP on 127.0.0.1')
}
