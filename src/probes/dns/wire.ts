// DNS messages on the wire through dns-packet. dns-packet has no name for HTTPS (type 65), so we map
// it to its generic UNKNOWN_65 on the way out and decode the SVCB-form rdata ourselves on the way in.

import { randomInt } from 'node:crypto'
import packet from 'dns-packet'
import type { DnsRecordType } from '../../model/checks.ts'

export const HTTPS_TYPE = 65
const WIRE_TYPE: Readonly<Record<DnsRecordType, string>> = {
  A: 'A',
  AAAA: 'AAAA',
  CNAME: 'CNAME',
  MX: 'MX',
  NS: 'NS',
  TXT: 'TXT',
  SOA: 'SOA',
  HTTPS: `UNKNOWN_${HTTPS_TYPE}`,
}

/** UDP payload size we advertise (EDNS0), the DNS flag day 2020 value that avoids fragmentation. */
export const EDNS_UDP_SIZE = 1232

export interface EncodedQuery {
  id: number
  bytes: Buffer
}

export function encodeQuery(name: string, recordType: DnsRecordType): EncodedQuery {
  const id = randomInt(0, 65536)
  const bytes = packet.encode({
    type: 'query',
    id,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: WIRE_TYPE[recordType] as 'A', name, class: 'IN' }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: EDNS_UDP_SIZE,
        flags: 0,
        options: [],
      } as unknown as packet.Answer,
    ],
  })
  return { id, bytes }
}

export type QueryEncoder = (name: string, recordType: DnsRecordType) => EncodedQuery

/**
 * encodeQuery that remembers each (name, type) message and only writes a new id into a copy: a
 * monitor asks the same question every run, and dns-packet's generic encoder costs more than the
 * rest of the query's JavaScript. Bounded: past `capacity` different questions it starts over.
 */
export function createQueryEncoder(capacity = 1024): QueryEncoder {
  const templates = new Map<string, Buffer>()
  return (name, recordType) => {
    const key = `${recordType} ${name}`
    let template = templates.get(key)
    if (template === undefined) {
      if (templates.size >= capacity) templates.clear()
      template = encodeQuery(name, recordType).bytes
      templates.set(key, template)
    }
    const id = randomInt(0, 65536)
    const bytes = Buffer.allocUnsafe(template.length)
    template.copy(bytes)
    bytes.writeUInt16BE(id, 0)
    return { id, bytes }
  }
}

export interface DecodedMessage {
  id: number
  isResponse: boolean
  truncated: boolean
  rcode: string
  rcodeNumber: number
  flags: { aa: boolean; tc: boolean; rd: boolean; ra: boolean; ad: boolean; cd: boolean }
  questions: packet.Question[]
  answers: WireRecord[]
  authorities: WireRecord[]
}

/** A resource record as dns-packet decodes it, typed loosely: `type` may be UNKNOWN_<n>. */
export interface WireRecord {
  name: string
  type: string
  ttl?: number
  class?: string
  data?: unknown
}

export class DnsMessageError extends Error {
  override name = 'DnsMessageError'
}

export function decodeMessage(bytes: Buffer): DecodedMessage {
  let decoded: packet.DecodedPacket & { rcode?: string }
  try {
    decoded = packet.decode(bytes) as packet.DecodedPacket & { rcode?: string }
  } catch (err) {
    throw new DnsMessageError(`malformed DNS response (${bytes.length} bytes): ${(err as Error).message}`)
  }
  const flags = decoded.flags ?? 0
  return {
    id: decoded.id ?? -1,
    isResponse: decoded.flag_qr,
    truncated: decoded.flag_tc,
    rcode: decoded.rcode ?? `RCODE_${flags & 0xf}`,
    rcodeNumber: flags & 0xf,
    flags: {
      aa: decoded.flag_aa,
      tc: decoded.flag_tc,
      rd: decoded.flag_rd,
      ra: decoded.flag_ra,
      ad: decoded.flag_ad,
      cd: decoded.flag_cd,
    },
    questions: decoded.questions ?? [],
    answers: records(decoded.answers),
    authorities: records(decoded.authorities),
  }
}

function records(list: packet.Answer[] | undefined): WireRecord[] {
  return ((list ?? []) as unknown as WireRecord[]).filter((r) => r.type !== 'OPT')
}

/** The common name of a wire type: HTTPS for UNKNOWN_65, otherwise dns-packet's. */
export function typeName(type: string): string {
  return type === `UNKNOWN_${HTTPS_TYPE}` ? 'HTTPS' : type
}
