// Error reporting as it really runs: the agent in a child process, a real startup failure, a local
// HTTP server in Sentry's place, and the envelope inspected field by field.

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { spawnAgent } from '../helpers/agent-process.ts'
import { envelopeItems, startEnvelopeCollector } from '../helpers/envelope-collector.ts'

const SECRET = 'Sup3r$ecret/Value+1'
const API_KEY = 'ok_live_a1b2c3d4e5f6'

/** A data directory whose path holds a secret and whose results file cannot be opened. */
async function brokenDataDir(): Promise<string> {
  const base = await mkdtemp(path.join(tmpdir(), 'outpost-sentry-'))
  const dataDir = path.join(base, encodeURIComponent(SECRET))
  await mkdir(path.join(dataDir, 'results.ndjson'), { recursive: true })
  return dataDir
}

async function emptyChecksDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'outpost-sentry-checks-'))
  await writeFile(path.join(dir, 'none.check.ts'), "import { UrlMonitor } from 'outpost'\n")
  return dir
}

describe('error reporting', () => {
  it('sends an agent error with only message, stack, version, platform and Node version', async () => {
    const collector = await startEnvelopeCollector()
    try {
      const agent = spawnAgent(['agent', '--checks', await emptyChecksDir()], {
        SENTRY_DSN: collector.dsn,
        AGENT_DATA_DIR: await brokenDataDir(),
        AGENT_HEALTH_PORT: '0',
        AGENT_LISTEN_HOST: '127.0.0.1',
        API_KEY,
        SERVICE_SECRET_TOKEN: SECRET,
      })
      const { code } = await agent.exited
      expect(code).toBe(1)
      expect(agent.output()).toContain('the agent could not start')
      expect(collector.received).toHaveLength(1)
      const { body, url } = collector.received[0]!
      expect(url.split('?')[0]).toBe('/api/1/envelope/')
      for (const form of [SECRET, encodeURIComponent(SECRET), API_KEY]) expect(body).not.toContain(form)

      const [item] = envelopeItems(body)
      expect(item?.header.type).toBe('event')
      const event = item!.payload as Record<string, unknown>
      expect(Object.keys(event).sort()).toEqual(
        [
          'contexts',
          'event_id',
          'exception',
          'level',
          'platform',
          'release',
          'sdk',
          'tags',
          'timestamp',
        ].sort(),
      )
      // The SDK stamps its own name and version after our filter; nothing of the agent's is in it.
      expect(Object.keys(event.sdk as object).sort()).toEqual(['integrations', 'name', 'packages', 'version'])
      expect((event.sdk as { integrations: unknown[] }).integrations).toEqual([])
      expect(event.level).toBe('error')
      expect(event.release).toMatch(/^outpost-agent@\d+\.\d+\.\d+$/)
      expect(event.tags).toEqual({
        agent_version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        platform: process.platform,
        node: expect.stringMatching(/^v24\./),
      })
      expect(event.contexts).toEqual({
        os: { name: process.platform },
        runtime: { name: 'node', version: expect.stringMatching(/^v24\./) },
      })
      const exception = (event.exception as { values: Array<Record<string, unknown>> }).values[0]!
      expect(exception.value).toMatch(/EISDIR/)
      const frames = (exception.stacktrace as { frames: Array<Record<string, unknown>> }).frames
      expect(frames.length).toBeGreaterThan(0)
      for (const frame of frames) {
        expect(
          Object.keys(frame).every((k) => ['filename', 'function', 'lineno', 'colno', 'in_app'].includes(k)),
        ).toBe(true)
        expect(String(frame.filename)).not.toMatch(/^\/|^file:/)
      }
      for (const banned of [
        'context_line',
        'pre_context',
        'breadcrumbs',
        'request',
        'server_name',
        'extra',
        'user',
      ]) {
        expect(body).not.toContain(`"${banned}"`)
      }
    } finally {
      collector.close()
    }
  })

  it('sends nothing with EXTERNAL_OBSERVABILITY=off', async () => {
    const collector = await startEnvelopeCollector()
    try {
      const agent = spawnAgent(['agent', '--checks', await emptyChecksDir()], {
        SENTRY_DSN: collector.dsn,
        EXTERNAL_OBSERVABILITY: 'off',
        AGENT_DATA_DIR: await brokenDataDir(),
        AGENT_HEALTH_PORT: '0',
        AGENT_LISTEN_HOST: '127.0.0.1',
      })
      const { code } = await agent.exited
      expect(code).toBe(1)
      expect(agent.output()).toContain('error reporting off (EXTERNAL_OBSERVABILITY=off)')
      expect(collector.received).toEqual([])
    } finally {
      collector.close()
    }
  })

  it('adds no tracing headers to the requests a check makes while reporting is on', async () => {
    const collector = await startEnvelopeCollector()
    const seen: IncomingHttpHeaders[] = []
    const target = createServer((request, response) => {
      seen.push(request.headers)
      response.end('ok')
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    try {
      const dir = await mkdtemp(path.join(tmpdir(), 'outpost-sentry-url-'))
      const port = (target.address() as AddressInfo).port
      await writeFile(
        path.join(dir, 'site.check.ts'),
        `import { UrlMonitor } from 'outpost'\nnew UrlMonitor('site', { name: 'Site', request: { url: 'http://127.0.0.1:${port}/' } })\n`,
      )
      const agent = spawnAgent(['test', dir], {
        SENTRY_DSN: collector.dsn,
        AGENT_DATA_DIR: path.join(dir, 'data'),
        AGENT_HEALTH_PORT: '0',
        AGENT_LISTEN_HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      })
      const { code } = await agent.exited
      expect(code).toBe(0)
      expect(agent.output()).toContain('error reporting on')
      expect(seen).toHaveLength(1)
      const names = Object.keys(seen[0]!)
      for (const tracing of ['sentry-trace', 'baggage', 'traceparent', 'tracestate'])
        expect(names).not.toContain(tracing)
    } finally {
      target.close()
      collector.close()
    }
  })
})
