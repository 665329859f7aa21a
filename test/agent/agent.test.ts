import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startAgent } from '../../src/agent/agent.ts'
import type { Executor } from '../../src/agent/executors.ts'
import type { JobSource } from '../../src/agent/job-source.ts'
import type { CheckDefinition } from '../../src/model/checks.ts'
import type { CheckResult } from '../../src/model/result.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { testAgentConfig } from '../helpers/agent-config.ts'
import { captureLogger } from '../helpers/capture-logger.ts'
import { urlCheck, withType } from '../helpers/definitions.ts'

function onceSource(checks: CheckDefinition[]): JobSource {
  return {
    async *jobs(signal) {
      for (const [i, check] of checks.entries()) {
        yield { id: `run-${i}`, check, dueAt: Date.now(), attempt: 1, testSession: false }
      }
      await new Promise((resolve) => signal.addEventListener('abort', resolve))
    },
    ack: async () => {},
  }
}

async function readResults(dataDir: string): Promise<CheckResult[]> {
  const text = await readFile(path.join(dataDir, 'results.ndjson'), 'utf8')
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CheckResult)
}

describe('agent', () => {
  it('drains on stop: readiness 503 at once, the running job finishes and is recorded', async () => {
    const config = await testAgentConfig()
    let started: () => void = () => {}
    const jobStarted = new Promise<void>((resolve) => {
      started = resolve
    })
    const execute: Executor = async () => {
      started()
      await new Promise((resolve) => setTimeout(resolve, 1000))
      return { status: 'passed', responseTimeMs: 1000, assertions: [] }
    }
    const agent = await startAgent({
      config,
      log: captureLogger().log,
      scrubber: createScrubber([]),
      source: onceSource([urlCheck('long')]),
      executors: { URL: execute },
      info: { id: 'a1', version: '7.0.1', flavor: 'full' },
    })
    const base = `http://127.0.0.1:${agent.healthPort}`
    expect((await fetch(`${base}/-/readiness`)).status).toBe(200)
    await jobStarted
    const stopping = agent.stop()
    expect((await fetch(`${base}/-/readiness`)).status).toBe(503)
    expect((await fetch(`${base}/-/liveness`)).status).toBe(200)
    await stopping
    expect(agent.lifecycle.state()).toBe('stopped')
    const results = await readResults(config.dataDir)
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ checkId: 'long', status: 'passed', agent: { id: 'a1' } })
  })

  it('records jobs still running at the drain timeout as failed, with the reason', async () => {
    const config = await testAgentConfig({ AGENT_DRAIN_TIMEOUT: '1' })
    let started: () => void = () => {}
    const jobStarted = new Promise<void>((resolve) => {
      started = resolve
    })
    const execute: Executor = (_check, ctx) =>
      new Promise((resolve) => {
        started()
        ctx.signal.addEventListener('abort', () =>
          resolve({ status: 'failed', error: { code: 'ABORTED', message: 'aborted' }, assertions: [] }),
        )
      })
    const agent = await startAgent({
      config,
      log: captureLogger().log,
      scrubber: createScrubber([]),
      source: onceSource([urlCheck('hang')]),
      executors: { URL: execute },
      info: { id: 'a1', version: '7.0.1', flavor: 'full' },
    })
    await jobStarted
    await agent.stop()
    const [result] = await readResults(config.dataDir)
    expect(result?.status).toBe('failed')
    expect(result?.error?.code).toBe('SHUTDOWN')
    expect(result?.error?.message).toContain('AGENT_DRAIN_TIMEOUT=1 s')
  })

  it('refuses Playwright jobs on the uptime flavor with a clear message', async () => {
    const config = await testAgentConfig({ AGENT_FLAVOR: 'uptime' })
    const agent = await startAgent({
      config,
      log: captureLogger().log,
      scrubber: createScrubber([]),
      source: onceSource([withType(urlCheck('ms'), 'MULTI_STEP')]),
      executors: {},
      info: { id: 'a1', version: '7.0.1', flavor: 'uptime' },
    })
    for (let i = 0; i < 100; i++) {
      const text = await readFile(path.join(config.dataDir, 'results.ndjson'), 'utf8').catch(() => '')
      if (text.includes('"ms"')) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await agent.stop()
    const [result] = await readResults(config.dataDir)
    expect(result?.error).toEqual({
      code: 'UNSUPPORTED_BY_FLAVOR',
      message:
        'MULTI_STEP check refused: the uptime agent runs URL, DNS, TCP, ICMP and heartbeat monitors only; run this check on the full agent image',
    })
  })
})
