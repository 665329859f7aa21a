// A local stand-in for Sentry's ingest: a real HTTP server that keeps every envelope POSTed to it.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

export interface Collected {
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export async function startEnvelopeCollector(): Promise<{
  dsn: string
  received: Collected[]
  close(): void
}> {
  const received: Collected[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      const raw = Buffer.concat(chunks)
      const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
      received.push({ url: request.url ?? '', headers: request.headers, body: body.toString('utf8') })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return { dsn: `http://publickey@127.0.0.1:${port}/1`, received, close: () => server.close() }
}

/** An envelope is newline-separated JSON: envelope header, then item header and payload pairs. */
export function envelopeItems(body: string): Array<{ header: Record<string, unknown>; payload: unknown }> {
  const lines = body.split('\n').filter(Boolean)
  const items: Array<{ header: Record<string, unknown>; payload: unknown }> = []
  for (let i = 1; i + 1 < lines.length; i += 2) {
    items.push({ header: JSON.parse(lines[i]!), payload: JSON.parse(lines[i + 1]!) })
  }
  return items
}
