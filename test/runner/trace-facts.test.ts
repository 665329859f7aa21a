import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import yazl from 'yazl'
import { authorizationValuesInText, requestLogFromTrace } from '../../src/runner/trace-facts.ts'
import { readZip } from '../../src/runner/zip.ts'

function zipOf(entries: Record<string, string>, compress: boolean): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), name, { compress })
  zip.end()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
}

const snapshot = (url: string, status: number, api: boolean, started: string) =>
  JSON.stringify({
    type: 'resource-snapshot',
    snapshot: {
      startedDateTime: started,
      time: 7.6,
      request: { method: 'GET', url, headers: [{ name: 'Authorization', value: 'Bearer a"b' }] },
      response: { status },
      _apiRequest: api,
    },
  })

describe('trace facts', () => {
  it('reads the request log out of a trace zip, stored or deflated', async () => {
    for (const compress of [false, true]) {
      const network = [
        snapshot('http://127.0.0.1/b', 500, false, '2026-01-01T00:00:02Z'),
        '{"type":"other"}',
        snapshot('http://127.0.0.1/a', 200, true, '2026-01-01T00:00:01Z'),
      ].join('\n')
      const entries = readZip(await zipOf({ '0-trace.network': network, 'test.trace': '{}' }, compress))
      expect(entries.map((e) => e.name)).toEqual(['0-trace.network', 'test.trace'])
      expect(requestLogFromTrace(entries)).toEqual([
        {
          method: 'GET',
          url: 'http://127.0.0.1/a',
          status: 200,
          durationMs: 8,
          startedAt: '2026-01-01T00:00:01Z',
          api: true,
        },
        {
          method: 'GET',
          url: 'http://127.0.0.1/b',
          status: 500,
          durationMs: 8,
          startedAt: '2026-01-01T00:00:02Z',
          api: false,
        },
      ])
    }
  })

  it('finds Authorization values in name/value pairs and header objects, JSON-unescaped', () => {
    const text = `${snapshot('http://x/', 200, true, '')}\n{"params":{"headers":{"authorization":"Basic dXNlcjpwYXNz"}}}`
    expect(authorizationValuesInText(text)).toEqual(['Bearer a"b', 'Basic dXNlcjpwYXNz'])
  })
})
