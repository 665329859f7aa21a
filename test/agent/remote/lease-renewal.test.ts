// A lease renewal answered with something that is not a lease (a proxy's page with 200, a broken
// hub): the agent treats it as a failed renewal and tries again after a pause, never in a tight loop,
// and says what came. The hub here is a loopback HTTP server that answers renewals that way.

import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createHubClient, type HubClient } from '../../../src/agent/remote/hub-client.ts'
import { createRemoteSource } from '../../../src/agent/remote/remote-source.ts'
import { captureLogger } from '../../helpers/capture-logger.ts'
import { urlCheck } from '../../helpers/definitions.ts'

const cleanup: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      text += chunk
    })
    request.on('end', () => resolve(text))
  })
}

/** Hands out one job whose lease ends in 2 s, then nothing; answers every renewal with `renewal`. */
async function brokenLeaseHub(renewal: { contentType: string; body: string }): Promise<{
  url: string
  renewals: () => number
}> {
  let claims = 0
  let renewals = 0
  const server: Server = createServer(async (request, response) => {
    await bodyOf(request)
    const reply = (status: number, contentType: string, body: string): void => {
      response.writeHead(status, { 'content-type': contentType })
      response.end(body)
    }
    if (request.url === '/v1/agent/register') return reply(200, 'application/json', '{}')
    if (request.url === '/v1/agent/jobs/claim') {
      claims += 1
      if (claims > 1) {
        // A long-poll with nothing to hand out.
        setTimeout(() => reply(200, 'application/json', '{"jobs":[]}'), 200)
        return
      }
      const job = {
        id: 'run-1',
        check: urlCheck('lease-check'),
        dueAt: Date.now(),
        attempt: 1,
        testSession: false,
        leaseUntil: Date.now() + 2000,
      }
      return reply(200, 'application/json', JSON.stringify({ jobs: [job] }))
    }
    if (request.url?.endsWith('/lease')) {
      renewals += 1
      return reply(200, renewal.contentType, renewal.body)
    }
    reply(404, 'application/json', '{"message":"no route"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, renewals: () => renewals }
}

describe('lease renewal answered without a lease', () => {
  for (const [label, renewal, said] of [
    [
      'a proxy page with 200',
      { contentType: 'text/html', body: '<html>gateway</html>' },
      'text "<html>gateway</html>"',
    ],
    [
      'JSON without leaseUntil',
      { contentType: 'application/json', body: '{"ok":true}' },
      'an object with ok',
    ],
  ] as const) {
    it(`${label}: a failed renewal, retried after a pause, not in a loop`, { timeout: 30_000 }, async () => {
      const hub = await brokenLeaseHub(renewal)
      const client: HubClient = createHubClient({ baseUrl: hub.url, apiKey: 'op_test-key' })
      cleanup.push(() => client.close())
      const { log, lines } = captureLogger()
      const source = createRemoteSource({
        client,
        log,
        agent: {
          id: 'agent-1',
          version: '7.0.1',
          flavor: 'uptime',
          location: 'private',
          checkTypes: ['URL'],
          runtimes: [],
        },
        slots: { light: 1, heavy: 0 },
        waitSeconds: 1,
      })
      const stop = new AbortController()
      cleanup.push(() => stop.abort())
      const jobs = source.jobs(stop.signal)[Symbol.asyncIterator]()
      const first = await jobs.next()
      expect(first.done).toBe(false)
      // The job stays held (never acknowledged), so its lease is renewed: at 1 s, then, after the
      // unusable answer, 2 s later. Looked at as soon as the second renewal arrives.
      const deadline = Date.now() + 20_000
      while (hub.renewals() < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(hub.renewals()).toBe(2)
      const warned = lines().filter((line) => line.includes('without a leaseUntil time'))
      expect(warned.length).toBeGreaterThanOrEqual(1)
      expect((JSON.parse(warned[0] as string) as { msg: string }).msg).toContain(
        `lease renewal of run run-1 without a leaseUntil time (got ${said}); trying again`,
      )
      source.delivered('run-1')
    })
  }
})
