// A plain HTTP server on loopback for the reliability tests: /ok answers 200, /fail 500, and every
// request (with its body) is kept so a test can see what a check sent out.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LoopbackServer {
  url: string
  port: number
  received: { method: string; url: string; body: string }[]
  close(): Promise<void>
}

export async function startLoopbackServer(): Promise<LoopbackServer> {
  const received: LoopbackServer['received'] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      received.push({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        body: Buffer.concat(chunks).toString('utf8'),
      })
      if (request.url?.startsWith('/fail')) response.writeHead(500).end('failing on purpose')
      else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
