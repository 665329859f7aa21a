// Stands in for your own DNS server so the DNS example passes on a machine with no network: it
// answers `agent.outpost.test` (A 127.0.0.1) on 127.0.0.1:8053, over UDP and TCP. Your checks point
// at your real name servers instead and need nothing like this.

import dgram from 'node:dgram'
import net from 'node:net'
import packet from 'dns-packet'

export const EXAMPLE_DNS_PORT = 8053
export const EXAMPLE_NAME = 'agent.outpost.test'

function answer(query: Buffer): Buffer {
  const request = packet.decode(query)
  const question = request.questions?.[0]
  const known = question?.name.toLowerCase() === EXAMPLE_NAME && question.type === 'A'
  return packet.encode({
    id: request.id,
    type: 'response',
    flags: packet.AUTHORITATIVE_ANSWER | (known ? 0 : 3), // rcode 3: NXDOMAIN
    questions: request.questions,
    answers: known ? [{ type: 'A', name: EXAMPLE_NAME, ttl: 60, data: '127.0.0.1' }] : [],
  })
}

/** Starts the responder unless something already listens on the port (an earlier load of the examples). */
export function startExampleDnsServer(): void {
  const udp = dgram.createSocket('udp4')
  udp.on('message', (message, remote) => {
    try {
      udp.send(answer(message), remote.port, remote.address)
    } catch {
      // A malformed query gets no answer, as from a real server.
    }
  })
  udp.on('error', () => udp.close())
  udp.bind(EXAMPLE_DNS_PORT, '127.0.0.1', () => udp.unref())

  const tcp = net.createServer((socket) => {
    socket.once('data', (data) => {
      try {
        const reply = answer(data.subarray(2, 2 + data.readUInt16BE(0)))
        const length = Buffer.alloc(2)
        length.writeUInt16BE(reply.length)
        socket.end(Buffer.concat([length, reply]))
      } catch {
        socket.destroy()
      }
    })
  })
  tcp.on('error', () => tcp.close())
  tcp.listen(EXAMPLE_DNS_PORT, '127.0.0.1', () => tcp.unref())
}
