// The real agent in a child process, a real SIGTERM, a real slow HTTP server on loopback.

import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CheckResult } from '../../src/model/result.ts'
import { spawnAgent } from '../helpers/agent-process.ts'

describe('graceful shutdown of the real agent', () => {
  let server: Server | undefined
  afterEach(() => server?.close())

  it('on SIGTERM: readiness 503, liveness 200, the running check finishes and is recorded, exit 0', async () => {
    let requestArrived: () => void = () => {}
    const arrived = new Promise<void>((resolve) => {
      requestArrived = resolve
    })
    server = createServer((_request, response) => {
      requestArrived()
      setTimeout(() => response.end('slow but fine'), 3000)
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const slowPort = (server.address() as AddressInfo).port

    const dir = await mkdtemp(path.join(tmpdir(), 'outpost-e2e-'))
    await writeFile(
      path.join(dir, 'slow.check.ts'),
      `import { Frequency, UrlMonitor } from 'outpost'
new UrlMonitor('slow-endpoint', {
  name: 'Slow endpoint',
  frequency: Frequency.EVERY_10S,
  request: { url: 'http://127.0.0.1:${slowPort}/' },
  degradedResponseTime: 10000,
  maxResponseTime: 20000,
})
`,
    )
    const dataDir = path.join(dir, 'data')
    const agent = spawnAgent(['agent', '--checks', dir], {
      AGENT_HEALTH_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
      AGENT_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    })
    await agent.waitForOutput(/health server listening on 127\.0\.0\.1:(\d+)/)
    const healthPort = /health server listening on 127\.0\.0\.1:(\d+)/.exec(agent.output())![1]
    const base = `http://127.0.0.1:${healthPort}`
    await agent.waitForOutput(/agent ready: 1 check/)
    expect((await fetch(`${base}/-/readiness`)).status).toBe(200)

    await arrived
    agent.child.kill('SIGTERM')
    await agent.waitForOutput(/"to":"draining"/)
    expect((await fetch(`${base}/-/readiness`)).status).toBe(503)
    expect((await fetch(`${base}/-/liveness`)).status).toBe(200)

    const { code } = await agent.exited
    expect(code).toBe(0)
    const lines = (await readFile(path.join(dataDir, 'results.ndjson'), 'utf8')).split('\n').filter(Boolean)
    const results = lines.map((l) => JSON.parse(l) as CheckResult)
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ checkId: 'slow-endpoint', checkType: 'URL', status: 'passed' })
    expect(results[0]!.durationMs).toBeGreaterThanOrEqual(2900)
  })

  it('on a second signal: stops at once, the running check recorded as failed with SHUTDOWN, exit 0', async () => {
    let requestArrived: () => void = () => {}
    const arrived = new Promise<void>((resolve) => {
      requestArrived = resolve
    })
    // Answers far beyond the test: only the second signal can end the run.
    server = createServer(() => requestArrived())
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const hangPort = (server.address() as AddressInfo).port
    const dir = await mkdtemp(path.join(tmpdir(), 'outpost-e2e-'))
    await writeFile(
      path.join(dir, 'hang.check.ts'),
      `import { Frequency, UrlMonitor } from 'outpost'
new UrlMonitor('hanging-endpoint', {
  name: 'Hanging endpoint',
  frequency: Frequency.EVERY_10S,
  request: { url: 'http://127.0.0.1:${hangPort}/' },
})
`,
    )
    const dataDir = path.join(dir, 'data')
    const agent = spawnAgent(['agent', '--checks', dir], {
      AGENT_HEALTH_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
      AGENT_DATA_DIR: dataDir,
    })
    await agent.waitForOutput(/agent ready: 1 check/)
    await arrived
    agent.child.kill('SIGTERM')
    await agent.waitForOutput(/"to":"draining"/)
    agent.child.kill('SIGTERM')
    const { code } = await agent.exited
    expect(code).toBe(0)
    const [line] = (await readFile(path.join(dataDir, 'results.ndjson'), 'utf8')).split('\n')
    const result = JSON.parse(line!) as CheckResult
    expect(result).toMatchObject({
      checkId: 'hanging-endpoint',
      status: 'failed',
      error: { code: 'SHUTDOWN' },
    })
  })

  it('refuses a bad environment with exit 2 and one line naming variable, value and rule', async () => {
    for (const [name, value, rule] of [
      ['AGENT_HEALTH_PORT', 'abc', 'expected a whole number from 0 to 65535'],
      ['JOB_CONCURRENCY', '0', 'expected a whole number from 1 to 10'],
    ] as const) {
      const agent = spawnAgent(['start'], { [name]: value, API_KEY: 'never-print-this-key' })
      const { code } = await agent.exited
      expect(code).toBe(2)
      const lines = agent.output().trim().split('\n')
      expect(lines).toEqual([
        `outpost: ${name}="${value}" is not valid: ${rule} (default ${name === 'JOB_CONCURRENCY' ? 1 : 8081})`,
      ])
      expect(agent.output()).not.toContain('never-print-this-key')
    }
  })
})
