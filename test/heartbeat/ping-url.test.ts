import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import { heartbeatPingUrl, heartbeatPingUrls, ingressBaseUrl } from '../../src/heartbeat/ping-url.ts'

describe('heartbeat ping URLs', () => {
  it('builds one URL per heartbeat from the ingress address', () => {
    const base = ingressBaseUrl({ host: '127.0.0.1', port: 8082 })
    expect(base).toBe('http://127.0.0.1:8082')
    expect(heartbeatPingUrls([{ logicalId: 'backup', name: 'Backup', pingToken: 'tok-1' }], base)).toEqual([
      { logicalId: 'backup', name: 'Backup', url: 'http://127.0.0.1:8082/ping/tok-1' },
    ])
  })

  it('uses the host name for a wildcard bind, a public URL when given, and brackets IPv6', () => {
    expect(ingressBaseUrl({ host: '0.0.0.0', port: 8082 })).toBe(`http://${hostname()}:8082`)
    expect(ingressBaseUrl({ host: '::1', port: 8082 })).toBe('http://[::1]:8082')
    expect(ingressBaseUrl({ host: '0.0.0.0', port: 8082, publicUrl: 'https://hb.example.test/' })).toBe(
      'https://hb.example.test',
    )
    expect(heartbeatPingUrl('https://hb.example.test/', 'a b')).toBe('https://hb.example.test/ping/a%20b')
  })
})
