import { afterEach, describe, expect, it } from 'vitest'
import { type HealthServer, startHealthServer } from '../../src/agent/health-server.ts'
import { createLifecycle } from '../../src/agent/lifecycle.ts'
import { createAgentMetrics } from '../../src/telemetry/metrics.ts'

describe('health server', () => {
  let server: HealthServer | undefined
  afterEach(async () => server?.close())

  it('answers readiness by lifecycle state, liveness and health always', async () => {
    const lifecycle = createLifecycle()
    const metrics = createAgentMetrics({ version: '7.0.1', flavor: 'uptime' })
    server = await startHealthServer({ lifecycle, metrics, host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${server.port}`
    const status = async (p: string) => (await fetch(`${base}${p}`)).status

    expect(await status('/-/readiness')).toBe(503)
    lifecycle.advance('ready')
    expect(await status('/-/readiness')).toBe(200)
    expect(await (await fetch(`${base}/-/readiness`)).json()).toEqual({ status: 'ready' })
    lifecycle.advance('draining')
    expect(await status('/-/readiness')).toBe(503)
    expect(await status('/-/liveness')).toBe(200)
    expect(await status('/health')).toBe(200)
    metrics.close()
  })

  it('serves Prometheus metrics with agent info', async () => {
    const metrics = createAgentMetrics({ version: '7.0.1', flavor: 'full' })
    metrics.jobsStarted.inc({ type: 'URL' })
    server = await startHealthServer({ lifecycle: createLifecycle(), metrics, host: '127.0.0.1', port: 0 })
    const response = await fetch(`http://127.0.0.1:${server.port}/metrics`)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
    const body = await response.text()
    expect(body).toContain('outpost_agent_info{version="7.0.1",flavor="full"} 1')
    expect(body).toContain('outpost_jobs_started_total{type="URL"} 1')
    expect(body).toMatch(/outpost_event_loop_lag_seconds\{quantile="0.99"\} /)
    metrics.close()
  })

  it('answers unknown paths with a JSON 404 that does not echo the query', async () => {
    const metrics = createAgentMetrics({ version: '7.0.1', flavor: 'full' })
    server = await startHealthServer({ lifecycle: createLifecycle(), metrics, host: '127.0.0.1', port: 0 })
    const response = await fetch(`http://127.0.0.1:${server.port}/nope?token=abc`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'no route GET /nope',
    })
    metrics.close()
  })
})
