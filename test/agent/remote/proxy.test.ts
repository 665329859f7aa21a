// The agent reaches the hub through a real forward proxy (tinyproxy from Debian) on loopback, and
// bypasses it for hosts in NO_PROXY; an HTTPS hub (a TLS front with a self-signed certificate) is
// trusted through NODE_EXTRA_CA_CERTS, directly and through the proxy's CONNECT tunnel.

import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Agent, startAgent } from '../../../src/agent/agent.ts'
import { createHubClient } from '../../../src/agent/remote/hub-client.ts'
import { createRemoteParts, HubUnavailableError, type RemoteParts } from '../../../src/agent/remote/index.ts'
import type { UrlCheck } from '../../../src/model/checks.ts'
import { createScrubber } from '../../../src/secrets/scrubber.ts'
import { testAgentConfig } from '../../helpers/agent-config.ts'
import { captureLogger } from '../../helpers/capture-logger.ts'
import { urlRequest } from '../../helpers/definitions.ts'
import type { Child } from '../../hub/helpers/child.ts'
import { startTestHub, type TestHub } from '../../hub/helpers/test-hub.ts'
import { makeSelfSignedCert } from '../../probes/url-fixtures.ts'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../../..')

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('agent to hub through tinyproxy', () => {
  let hub: TestHub
  let proxy: Child
  let proxyUrl = ''
  let dir = ''
  let tls: HttpsServer
  let tlsUrl = ''
  let caFile = ''

  beforeAll(async () => {
    // Serialised with the other test files that install packages (apt runs one at a time).
    await run(
      'flock',
      [
        '/tmp/outpost-install-system-packages.lock',
        path.join(root, 'scripts/install-system-packages'),
        'tinyproxy',
      ],
      {
        timeout: 600_000,
      },
    )
    dir = await mkdtemp(path.join(tmpdir(), 'outpost-tinyproxy-'))
    hub = await startTestHub()
    const port = await freePort()
    const conf = path.join(dir, 'tinyproxy.conf')
    await writeFile(
      conf,
      `Port ${port}\nListen 127.0.0.1\nAllow 127.0.0.1\nTimeout 60\nLogLevel Connect\nMaxClients 50\n`,
    )
    // -d: in the foreground, logging to stderr (read by the test to see what went through it).
    const child = spawn('/usr/bin/tinyproxy', ['-d', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString()
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    )
    proxy = {
      child,
      output: () => output,
      exited,
      waitFor: async () => /x/.exec('x') as RegExpExecArray,
      kill: async (signal = 'SIGTERM') => {
        child.kill(signal)
        await exited
      },
    }
    proxyUrl = `http://127.0.0.1:${port}`
    // The hub behind TLS: a front that terminates HTTPS with a self-signed certificate and passes
    // each request on to the hub.
    const certificate = makeSelfSignedCert(2)
    caFile = path.join(dir, 'hub-ca.pem')
    await writeFile(caFile, certificate.cert)
    const hubPort = Number(new URL(hub.url).port)
    tls = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
      const upstream = httpRequest(
        { host: '127.0.0.1', port: hubPort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      upstream.on('error', () => res.destroy())
      req.pipe(upstream)
    })
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve))
    tlsUrl = `https://127.0.0.1:${(tls.address() as { port: number }).port}`
    for (let i = 0; i < 100 && !output.includes('Reloading config file finished'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }, 600_000)

  afterAll(async () => {
    tls?.closeAllConnections()
    await new Promise<void>((resolve) => (tls ? tls.close(() => resolve()) : resolve()))
    await proxy?.kill('SIGTERM')
    await hub?.close()
    await rm(dir, { recursive: true, force: true })
  })

  async function runSession(env: Record<string, string>, location: string): Promise<string> {
    const config = await testAgentConfig({
      SERVICE_API_URL: hub.url,
      API_KEY: hub.key,
      AGENT_LOCATION: location,
      ...env,
    })
    const { log, lines } = captureLogger(createScrubber([hub.key]))
    const info = { id: `proxy-${location}`, version: '7.0.1', flavor: 'full' as const }
    let agent: Agent | undefined
    const parts: RemoteParts = await createRemoteParts({
      config,
      log,
      scrubber: createScrubber([hub.key]),
      info,
      checkTypes: ['URL'],
      waitSeconds: 1,
      backoff: { baseMs: 50, maxMs: 400 },
      onRejectedKey: () => void agent?.stop(),
    })
    agent = await startAgent({
      config,
      log,
      scrubber: createScrubber([hub.key]),
      source: parts.source,
      sink: parts.sink,
      info,
      executors: {
        URL: async (check) => {
          expect((check as UrlCheck).logicalId).toBe(`via-${location}`)
          return { status: 'passed', assertions: [] }
        },
      },
    })
    try {
      const triggered = await hub.api('/v2/check-sessions/trigger', {
        body: {
          checks: [
            {
              type: 'URL',
              logicalId: `via-${location}`,
              name: 'via proxy',
              // Never fetched: the stand-in executor above answers.
              request: urlRequest('http://127.0.0.1:9/'),
            },
          ],
          location,
        },
      })
      const { checkSessionId } = triggered.body as { checkSessionId: string }
      const completion = await hub.api(`/v2/check-sessions/${checkSessionId}/completion`)
      if (completion.status !== 200) console.error(lines().join('\n'))
      return completion.body as string
    } finally {
      await agent.stop()
      await parts.close(2000)
      await rm(config.dataDir, { recursive: true, force: true })
    }
  }

  it('claims and reports through HTTP_PROXY', async () => {
    expect(await runSession({ HTTP_PROXY: proxyUrl }, 'loc-proxied')).toBe('PASSED')
    const log = proxy.output()
    const port = new URL(hub.url).port
    for (const route of ['register', 'jobs/claim', 'results']) {
      expect(log).toContain(`Request (file descriptor`)
      expect(log).toContain(`POST http://127.0.0.1:${port}/v1/agent/${route} HTTP/1.1`)
    }
    // The API key travels to the hub, never into the proxy's log.
    expect(log).not.toContain(hub.key)
  })

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    const before = proxy.output().length
    expect(await runSession({ HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' }, 'loc-direct')).toBe('PASSED')
    expect(proxy.output().slice(before)).not.toContain('Request (file descriptor')
  })

  it('trusts an HTTPS hub through NODE_EXTRA_CA_CERTS, and without it fails as transient, naming the cause', async () => {
    const trusted = createHubClient({ baseUrl: tlsUrl, apiKey: hub.key, extraCaCerts: caFile })
    const ok = await trusted.json('GET', '/v1/status-pages/incidents')
    expect(ok.status).toBe(200)
    await trusted.close()
    const untrusted = createHubClient({ baseUrl: tlsUrl, apiKey: hub.key })
    const error = await untrusted.json('GET', '/v1/status-pages/incidents').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(HubUnavailableError)
    expect((error as Error).message).toMatch(
      /cannot reach the hub at https:\/\/127\.0\.0\.1:\d+ \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)/,
    )
    await untrusted.close()
  })

  it('reaches the HTTPS hub through HTTPS_PROXY (a CONNECT tunnel) with the extra CA', async () => {
    const before = proxy.output().length
    const client = createHubClient({
      baseUrl: tlsUrl,
      apiKey: hub.key,
      httpsProxy: proxyUrl,
      extraCaCerts: caFile,
    })
    const ok = await client.json('GET', '/v1/status-pages/incidents')
    expect(ok.status).toBe(200)
    await client.close()
    const port = new URL(tlsUrl).port
    expect(proxy.output().slice(before)).toContain(`CONNECT 127.0.0.1:${port} HTTP/1.1`)
    expect(proxy.output()).not.toContain(hub.key)
  })
})
