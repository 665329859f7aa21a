// Answers shown two ways: text lines as dig prints them (what TEXT_ANSWER regexes run over) and the
// JSON shape of DNS-over-HTTPS APIs (Google, Cloudflare), which JSON_ANSWER paths such as
// `$.Answer[0].data` address.

import { isIPv4, isIPv6 } from 'node:net'
import type packet from 'dns-packet'
import { type DecodedMessage, HTTPS_TYPE, typeName, type WireRecord } from './wire.ts'

const TYPE_NUMBER: Readonly<Record<string, number>> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  HTTPS: HTTPS_TYPE,
}

export interface JsonRecord {
  name: string
  type: number
  TTL: number
  data: string
}

export interface JsonAnswer {
  Status: number
  TC: boolean
  RD: boolean
  RA: boolean
  AD: boolean
  CD: boolean
  Question: { name: string; type: number }[]
  Answer: JsonRecord[]
  Authority: JsonRecord[]
}

export function answerLines(records: readonly WireRecord[]): string[] {
  return records.map((r) => {
    const type = typeName(r.type)
    return `${fqdn(r.name)} ${r.ttl ?? 0} ${r.class ?? 'IN'} ${type} ${recordData(r)}`
  })
}

export function answerJson(message: DecodedMessage): JsonAnswer {
  const record = (r: WireRecord): JsonRecord => ({
    name: fqdn(r.name),
    type: typeNumber(r.type),
    TTL: r.ttl ?? 0,
    data: recordData(r),
  })
  return {
    Status: message.rcodeNumber,
    TC: message.flags.tc,
    RD: message.flags.rd,
    RA: message.flags.ra,
    AD: message.flags.ad,
    CD: message.flags.cd,
    Question: message.questions.map((q) => ({ name: fqdn(q.name), type: typeNumber(q.type) })),
    Answer: message.answers.map(record),
    Authority: message.authorities.map(record),
  }
}

function typeNumber(type: string): number {
  const name = typeName(type)
  if (TYPE_NUMBER[name] !== undefined) return TYPE_NUMBER[name]
  const unknown = /^UNKNOWN_(\d+)$/.exec(type)
  return unknown ? Number(unknown[1]) : 0
}

function fqdn(name: string): string {
  return name.endsWith('.') ? name : `${name}.`
}

/** The record's data in presentation format (RFC 1035 §5.1, RFC 9460 for HTTPS). */
export function recordData(r: WireRecord): string {
  const data = r.data
  switch (r.type) {
    case 'A':
    case 'AAAA':
      return String(data)
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return fqdn(String(data))
    case 'MX': {
      const mx = data as { preference?: number; exchange: string }
      return `${mx.preference ?? 0} ${fqdn(mx.exchange)}`
    }
    case 'TXT': {
      const parts = Array.isArray(data) ? data : [data]
      return parts.map((p) => `"${escapeTxt(Buffer.isBuffer(p) ? p.toString('utf8') : String(p))}"`).join(' ')
    }
    case 'SOA': {
      const s = data as packet.SoaData
      return `${fqdn(s.mname)} ${fqdn(s.rname)} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`
    }
    case 'SRV': {
      const s = data as packet.SrvData
      return `${s.priority ?? 0} ${s.weight ?? 0} ${s.port} ${fqdn(s.target)}`
    }
  }
  if (r.type === `UNKNOWN_${HTTPS_TYPE}` && Buffer.isBuffer(data)) return svcbData(data)
  if (Buffer.isBuffer(data)) return `\\# ${data.length} ${data.toString('hex')}`
  return typeof data === 'string' ? data : JSON.stringify(data)
}

function escapeTxt(s: string): string {
  return s.replace(/["\\]/g, '\\$&')
}

const SVC_KEYS: Readonly<Record<number, string>> = {
  0: 'mandatory',
  1: 'alpn',
  2: 'no-default-alpn',
  3: 'port',
  4: 'ipv4hint',
  5: 'ech',
  6: 'ipv6hint',
}

/** SVCB/HTTPS rdata: priority, target name (never compressed, RFC 9460 §2.2), then key=value params. */
export function svcbData(rdata: Buffer): string {
  try {
    const priority = rdata.readUInt16BE(0)
    let offset = 2
    const labels: string[] = []
    for (;;) {
      const length = rdata.readUInt8(offset++)
      if (length === 0) break
      labels.push(rdata.toString('latin1', offset, offset + length))
      offset += length
    }
    const parts = [String(priority), labels.length === 0 ? '.' : `${labels.join('.')}.`]
    while (offset + 4 <= rdata.length) {
      const key = rdata.readUInt16BE(offset)
      const length = rdata.readUInt16BE(offset + 2)
      const value = rdata.subarray(offset + 4, offset + 4 + length)
      offset += 4 + length
      parts.push(svcParam(key, value))
    }
    return parts.join(' ')
  } catch {
    return `\\# ${rdata.length} ${rdata.toString('hex')}`
  }
}

function svcParam(key: number, value: Buffer): string {
  const name = SVC_KEYS[key] ?? `key${key}`
  switch (key) {
    case 1: {
      const ids: string[] = []
      for (let i = 0; i < value.length; ) {
        const length = value.readUInt8(i)
        ids.push(value.toString('latin1', i + 1, i + 1 + length))
        i += 1 + length
      }
      return `alpn="${ids.join(',')}"`
    }
    case 2:
      return name
    case 3:
      return `port=${value.readUInt16BE(0)}`
    case 4: {
      const ips: string[] = []
      for (let i = 0; i + 4 <= value.length; i += 4) ips.push([...value.subarray(i, i + 4)].join('.'))
      return `ipv4hint=${ips.filter((ip) => isIPv4(ip)).join(',')}`
    }
    case 6: {
      const ips: string[] = []
      for (let i = 0; i + 16 <= value.length; i += 16) ips.push(ipv6Text(value.subarray(i, i + 16)))
      return `ipv6hint=${ips.filter((ip) => isIPv6(ip)).join(',')}`
    }
    case 5:
      return `ech=${value.toString('base64')}`
    default:
      return `${name}=${value.toString('hex')}`
  }
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16))
  return groups.join(':')
}
