// Sending one DNS query to one server and receiving the answer: over UDP (a fresh socket per query)
// or over TCP (RFC 1035 §4.2.2: each message prefixed by its length in two bytes).

import dgram from 'node:dgram'
import { connectTcp } from '../net/timed-connect.ts'
import { CodedError, PhaseError } from '../network-errors.ts'
import type { StopSignal } from '../run-deadline.ts'
import type { NameServer } from './system-resolver.ts'

export interface RawAnswer {
  bytes: Buffer
  /** TCP only: the handshake's share of the time. */
  connectMs?: number
}

export function queryUdp(
  server: NameServer,
  id: number,
  query: Buffer,
  signal: StopSignal,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new PhaseError('request', signal.reason))
      return
    }
    const socket = dgram.createSocket(socketType(server))
    let done = false
    const finish = (err: Error | undefined, bytes?: Buffer): void => {
      if (done) return
      done = true
      signal.removeEventListener('abort', onAbort)
      socket.close()
      if (err) reject(err)
      else resolve({ bytes: bytes as Buffer })
    }
    const onAbort = (): void => finish(new PhaseError('response', signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    socket.on('error', (err) => finish(new PhaseError('response', err)))
    socket.on('message', (message: Buffer, from: dgram.RemoteInfo) => {
      // The socket is not connected: only the server's answer to our id counts (not stale, not spoofed).
      if (
        from.port === server.port &&
        from.address === server.address &&
        message.length >= 12 &&
        message.readUInt16BE(0) === id &&
        (message[2] as number) & 0x80
      ) {
        finish(undefined, message)
      }
    })
    // No send callback: a failed send is emitted as 'error' above, and the callback costs a tenth
    // of a query's CPU.
    socket.send(query, server.port, server.address)
  })
}

/**
 * The server's address is an IP literal by now (names are resolved first), and only IPv6 literals
 * hold a colon: cheaper than net.isIPv6's regular expression, which showed in the probe's profile.
 */
function socketType(server: NameServer): 'udp4' | 'udp6' {
  return server.address.includes(':') ? 'udp6' : 'udp4'
}

/** How long the refusal check after a UDP timeout may take. */
export const REFUSAL_CHECK_MS = 250

/**
 * After a UDP query went unanswered: was nothing listening? Only a connected UDP socket hears the
 * ICMP port-unreachable, and connecting costs a fifth of a query's time, so the hot path sends
 * unconnected and this check runs on the failure path only.
 */
export function udpRefused(server: NameServer, query: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(socketType(server))
    let done = false
    const finish = (refused: boolean): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.close()
      resolve(refused)
    }
    const timer = setTimeout(() => finish(false), REFUSAL_CHECK_MS)
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code === 'ECONNREFUSED'))
    socket.on('message', () => finish(false))
    socket.connect(server.port, server.address, (err?: unknown) => {
      if (err) finish(false)
      else
        socket.send(query, (sendError) => {
          if (sendError) finish((sendError as NodeJS.ErrnoException).code === 'ECONNREFUSED')
        })
    })
  })
}

/** Largest message TCP can carry (the length prefix is 16 bits). */
const MAX_TCP_MESSAGE = 65_535

export async function queryTcp(server: NameServer, query: Buffer, signal: StopSignal): Promise<RawAnswer> {
  const { socket, connectMs } = await connectTcp(server.address, server.port, signal)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    let expected = -1
    let done = false
    const finish = (err: Error | undefined, bytes?: Buffer): void => {
      if (done) return
      done = true
      signal.removeEventListener('abort', onAbort)
      socket.destroy()
      if (err) reject(err)
      else resolve({ bytes: bytes as Buffer, connectMs })
    }
    const onAbort = (): void => finish(new PhaseError('response', signal.reason))
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener('abort', onAbort, { once: true })
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      received += chunk.length
      if (expected < 0 && received >= 2) expected = Buffer.concat(chunks, received).readUInt16BE(0)
      if (expected >= 0 && received >= expected + 2) {
        finish(undefined, Buffer.concat(chunks, received).subarray(2, expected + 2))
      } else if (received > MAX_TCP_MESSAGE + 2) {
        finish(
          new PhaseError(
            'response',
            new CodedError('DNS_FAILURE', 'DNS answer over TCP longer than allowed'),
          ),
        )
      }
    })
    socket.on('error', (err) => finish(new PhaseError(received > 0 ? 'response' : 'request', err)))
    socket.on('end', () => {
      const why =
        received === 0
          ? `${server.address}:${server.port} closed the TCP connection without answering`
          : `${server.address}:${server.port} closed the TCP connection mid-answer (${received} bytes)`
      finish(new PhaseError('response', new CodedError('CONNECTION_RESET', why)))
    })
    const prefix = Buffer.allocUnsafe(2)
    prefix.writeUInt16BE(query.length, 0)
    socket.write(Buffer.concat([prefix, query]))
  })
}
