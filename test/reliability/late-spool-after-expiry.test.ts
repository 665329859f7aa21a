// A remote agent (`outpost agent`, child process) whose hub is gone for longer than lease + job expiry
// (300 + 360 s) while a check it claimed finishes: the result waits in the agent's spool, the hub
// comes back and its sweep records the run as a failed JOB_EXPIRED placeholder first, and then the
// spooled result arrives. What the hub keeps is the agent's real result, once; the session reports
// what the checks saw; a repeat of the post is a duplicate. The hub's clock is moved forward over the
// outage instead of waiting eleven minutes.

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Hub, startHub } from '../../src/hub/hub.ts'
import { openStore } from '../../src/hub/store/store.ts'
import type { CheckResult } from '../../src/model/result.ts'
import { type AgentProcess, spawnAgent } from '../helpers/agent-process.ts'
import { urlCheck } from '../helpers/definitions.ts'
import { createTestClock, testHubConfig } from '../hub/helpers/test-hub.ts'

const LOCATION = 'late-spool'
const LEASE_SECONDS = 300
const EXPIRY_SECONDS = 360

async function until(what: string, condition: () => Promise<boolean> | boolean, agent: AgentProcess) {
  // Bounded by count and by the test's timeout; a dead agent ends the wait at once.
  for (let i = 0; i < 900; i += 1) {
    if (await condition()) return
    if (agent.child.exitCode !== null) throw new Error(`agent exited while waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`gave up waiting for ${what}:\n${agent.output().slice(-4000)}`)
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
}

describe('a spooled result delivered after the hub expired its job', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  it('replaces the JOB_EXPIRED placeholder: the real result is the one kept, once', {
    timeout: 180_000,
  }, async () => {
    const hubDir = await mkdtemp(path.join(tmpdir(), 'outpost-late-spool-hub-'))
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-late-spool-agent-'))
    cleanup.push(() => rm(hubDir, { recursive: true, force: true }))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    const clock = createTestClock()
    const openHub = (port: number): Promise<Hub> =>
      startHub({
        config: testHubConfig(hubDir, {
          port,
          leaseSeconds: LEASE_SECONDS,
          jobExpirySeconds: EXPIRY_SECONDS,
        }),
        now: clock.now,
      })
    let hub = await openHub(0)
    const hubPort = hub.port
    cleanup.push(() => hub.close().catch(() => undefined))
    const account = await hub.store.createAccount('late-spool')
    const key = (await hub.store.createApiKey(account.id, 'agent')).key
    const api = (pathname: string, body?: unknown) =>
      fetch(`${hub.url}${pathname}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })

    // The target answers /on-time at once and holds /late until the hub is gone.
    let holding = true
    const hits = new Map<string, number>()
    const target = createServer((req, res) => {
      const name = (req.url ?? '/').slice(1)
      hits.set(name, (hits.get(name) ?? 0) + 1)
      const answer = () => (holding && name === 'late' ? setTimeout(answer, 50) : res.end('ok'))
      answer()
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => closeServer(target))
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`

    const agent = spawnAgent(['agent'], {
      SERVICE_API_URL: hub.url,
      API_KEY: key,
      AGENT_LOCATION: LOCATION,
      AGENT_DATA_DIR: dataDir,
      AGENT_FLAVOR: 'uptime',
      AGENT_HEALTH_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
      EXTERNAL_OBSERVABILITY: 'off',
    })
    cleanup.push(() => {
      if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL')
    })
    await agent.waitForOutput(/registered with the hub/, 60_000)

    const checks = ['on-time', 'late'].map((name) =>
      urlCheck(name, {
        request: { ...urlCheck(name).request, url: `${targetUrl}/${name}` },
        degradedResponseTime: 20_000,
        maxResponseTime: 30_000,
      }),
    )
    const trigger = await api('/v2/check-sessions/trigger', { checks, location: LOCATION })
    expect(trigger.status).toBe(201)
    const { runIds, checkSessionId } = (await trigger.json()) as { runIds: string[]; checkSessionId: string }
    const lateRun = runIds[1] as string
    const stored = async (checkId: string): Promise<CheckResult[]> =>
      ((await (await api(`/v1/check-results/${checkId}?limit=100`)).json()) as { entries: CheckResult[] })
        .entries
    await until('the on-time result at the hub', async () => (await stored('on-time')).length === 1, agent)
    await until('the late check running', () => hits.get('late') === 1, agent)

    // The hub goes away; the late check finishes into the spool.
    await hub.close()
    holding = false
    const spoolDir = path.join(dataDir, 'spool', 'results')
    const spooled = async () => (await readdir(spoolDir)).filter((name) => name.endsWith('.json'))
    await until('the late result in the spool', async () => (await spooled()).length === 1, agent)
    await agent.waitForOutput(/result delivery failed; 1 result\(s\) kept in the spool/)
    const [file] = await spooled()
    const real = JSON.parse(await readFile(path.join(spoolDir, file as string), 'utf8')) as CheckResult
    expect(real).toMatchObject({ id: lateRun, status: 'passed' })

    // Eleven minutes pass for the hub. It comes back and sweeps before the agent's retry arrives.
    clock.advance((LEASE_SECONDS + EXPIRY_SECONDS + 1) * 1000)
    const store = await openStore({
      dataDir: hubDir,
      now: clock.now,
      timings: { leaseMs: LEASE_SECONDS * 1000, expireAfterMs: EXPIRY_SECONDS * 1000 },
    })
    expect(await store.sweep()).toBe(1)
    expect(await store.sessionStatus(account.id, checkSessionId)).toBe('TIMED_OUT')
    expect((await store.listResults(account.id, 'late', 10)).entries).toMatchObject([
      { id: lateRun, status: 'failed', error: { code: 'JOB_EXPIRED' } },
    ])
    await store.close()
    hub = await openHub(hubPort)

    await until('the spool to drain', async () => (await spooled()).length === 0, agent)
    expect(await stored('late')).toEqual([real])
    const completion = await api(`/v2/check-sessions/${checkSessionId}/completion`)
    expect(await completion.json()).toBe('PASSED')
    // Posting it again (a retry after a lost answer) changes nothing.
    const again = await api('/v1/agent/results', real)
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ id: lateRun, duplicate: true })
    expect(await stored('late')).toEqual([real])
    expect(hits.get('late')).toBe(1)

    agent.child.kill('SIGTERM')
    expect((await agent.exited).code).toBe(0)
    expect(agent.output()).not.toContain(key)
    expect(agent.output()).not.toMatch(/uncaught exception|unhandled promise rejection/i)
  })
})
