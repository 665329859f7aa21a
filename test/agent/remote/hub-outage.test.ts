// The hub stopped for a minute under an agent that keeps running checks (its local schedule, reporting
// to the hub through the spool): when the hub returns, every result produced arrives exactly once.

import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startAgent } from '../../../src/agent/agent.ts'
import { createLocalSource } from '../../../src/agent/local-source.ts'
import { createHubClient } from '../../../src/agent/remote/hub-client.ts'
import { createSpoolSink } from '../../../src/agent/remote/spool-sink.ts'
import { type Hub, startHub } from '../../../src/hub/hub.ts'
import { createScrubber } from '../../../src/secrets/scrubber.ts'
import { testAgentConfig } from '../../helpers/agent-config.ts'
import { captureLogger } from '../../helpers/capture-logger.ts'
import { urlCheck, urlRequest } from '../../helpers/definitions.ts'
import { memorySink } from '../../helpers/memory-sink.ts'
import { testHubConfig } from '../../hub/helpers/test-hub.ts'

const OUTAGE_MS = 60_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function openHub(dataDir: string, port = 0): Promise<Hub> {
  return startHub({
    config: testHubConfig(dataDir, { port }),
  })
}

describe('a minute without the hub', () => {
  it('every result produced meanwhile arrives exactly once after it returns', {
    timeout: 300_000,
  }, async () => {
    const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-outage-hub-'))
    let hub = await openHub(hubDir)
    const port = Number(new URL(hub.url).port)
    const account = await hub.store.createAccount('outage')
    const key = (await hub.store.createApiKey(account.id, 'agent')).key
    const target = createServer((_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    const targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`
    const config = await testAgentConfig({ SERVICE_API_URL: hub.url, API_KEY: key })
    const { log, lines } = captureLogger(createScrubber([key]))
    const client = createHubClient({ baseUrl: hub.url, apiKey: key })
    // The default backoff (up to 30 s between attempts), as in production.
    const spool = await createSpoolSink({ client, dataDir: config.dataDir, log })
    const produced = memorySink()
    const checks = ['o-1', 'o-2', 'o-3'].map((id) =>
      urlCheck(id, {
        frequencySeconds: 2,
        request: urlRequest(`${targetUrl}/${id}`),
      }),
    )
    const agent = await startAgent({
      config,
      log,
      scrubber: createScrubber([key]),
      source: createLocalSource({ checks }),
      executors: {
        URL: async (check) => {
          const response = await fetch((check as (typeof checks)[number]).request.url)
          await response.text()
          return { status: 'passed', assertions: [] }
        },
      },
      info: { id: 'outage-agent', version: '7.0.1', flavor: 'full' },
      sink: spool,
      extraSinks: [produced],
    })
    try {
      await sleep(5000)
      await hub.close()
      const beforeOutage = produced.results.length
      await sleep(OUTAGE_MS)
      expect(produced.results.length).toBeGreaterThan(beforeOutage + 3 * 20)
      expect(await spool.pending()).toBeGreaterThan(0)
      expect(lines().some((l) => l.includes('result delivery failed'))).toBe(true)
      hub = await openHub(hubDir, port)
      await sleep(5000)
      await agent.stop()
      for (let i = 0; i < 120 && (await spool.pending()) > 0; i += 1) await sleep(500)
      expect(await spool.pending()).toBe(0)

      const atHub: string[] = []
      for (const check of checks) {
        let nextId: string | null = null
        do {
          const query: string = nextId ? `&nextId=${nextId}` : ''
          const response = await fetch(`${hub.url}/v1/check-results/${check.logicalId}?limit=100${query}`, {
            headers: { authorization: `Bearer ${key}` },
          })
          const page = (await response.json()) as { entries: Array<{ id: string }>; nextId: string | null }
          atHub.push(...page.entries.map((e) => e.id))
          nextId = page.nextId
        } while (nextId !== null)
      }
      const ids = produced.results.map((r) => r.id)
      expect(new Set(atHub).size).toBe(atHub.length)
      expect([...atHub].sort()).toEqual([...ids].sort())
    } finally {
      await agent.stop()
      await spool.close()
      await client.close()
      await hub.close().catch(() => undefined)
      await new Promise<void>((resolve) => target.close(() => resolve()))
      await rm(hubDir, { recursive: true, force: true })
      await rm(config.dataDir, { recursive: true, force: true })
    }
  })
})
