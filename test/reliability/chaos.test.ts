// Faults under the real agent (a child process): SIGKILL mid-run then a restart; the data directory's
// disk filling up (a 2 MB tmpfs) and space coming back.

import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CheckResult } from '../../src/model/result.ts'
import { type AgentProcess, spawnAgent } from '../helpers/agent-process.ts'

const TOKEN = `chaos-${randomUUID()}`

async function results(file: string): Promise<CheckResult[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  // Every line must be whole JSON: a half-written line would throw here.
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CheckResult)
}

async function until(what: string, condition: () => Promise<boolean>, agent?: AgentProcess): Promise<void> {
  // Bounded by the test's own timeout; a dead agent ends the wait at once.
  for (let i = 0; i < 1200; i++) {
    if (await condition()) return
    if (agent && agent.child.exitCode !== null) throw new Error(`agent exited while waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`gave up waiting for ${what}`)
}

function portFrom(agent: AgentProcess, what: 'health server' | 'heartbeat ingress'): number {
  return Number(new RegExp(`${what} listening on 127\\.0\\.0\\.1:(\\d+)`).exec(agent.output())![1])
}

function agentEnv(dataDir: string): Record<string, string> {
  return {
    AGENT_HEALTH_PORT: '0',
    AGENT_HEARTBEAT_PORT: '0',
    AGENT_LISTEN_HOST: '127.0.0.1',
    AGENT_DATA_DIR: dataDir,
    EXTERNAL_OBSERVABILITY: 'off',
    AGENT_FLAVOR: 'uptime',
  }
}

async function started(dir: string, dataDir: string): Promise<AgentProcess> {
  const agent = spawnAgent(['agent', '--checks', dir], agentEnv(dataDir))
  await agent.waitForOutput(/agent ready/, 60_000)
  await agent.waitForOutput(/heartbeat ingress listening on/, 60_000)
  return agent
}

describe('chaos against the real agent', () => {
  const cleanup: (() => Promise<void> | void)[] = []
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c()
  })

  async function loopback(handler: Parameters<typeof createServer>[1]): Promise<number> {
    const server: Server = createServer(handler)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    )
    return (server.address() as AddressInfo).port
  }

  async function checksDir(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'outpost-chaos-'))
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content)
    return dir
  }

  function track(agent: AgentProcess): AgentProcess {
    cleanup.push(() => {
      if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL')
    })
    return agent
  }

  it('SIGKILL mid-run, then a restart: heartbeat state kept, results written before are neither lost nor repeated', async () => {
    let slowArrived = false
    const port = await loopback((request, response) => {
      if (request.url?.startsWith('/slow')) {
        slowArrived = true
        setTimeout(() => response.end('slow'), 4000)
      } else response.end('ok')
    })
    const dir = await checksDir({
      'chaos.check.ts': `import { Frequency, HeartbeatMonitor, UrlMonitor } from 'outpost'
new UrlMonitor('steady', { name: 'Steady', frequency: Frequency.EVERY_10S, request: { url: 'http://127.0.0.1:${port}/ok' } })
new UrlMonitor('slow', { name: 'Slow', frequency: Frequency.EVERY_10S, request: { url: 'http://127.0.0.1:${port}/slow' } })
new HeartbeatMonitor('nightly', { name: 'Nightly', period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes', pingToken: '${TOKEN}' })
`,
    })
    const dataDir = path.join(dir, 'data')
    const resultsFile = path.join(dataDir, 'results.ndjson')
    const stateFile = path.join(dataDir, 'heartbeats', 'heartbeats.json')

    const first = track(await started(dir, dataDir))
    const ping = await fetch(
      `http://127.0.0.1:${portFrom(first, 'heartbeat ingress')}/ping/${TOKEN}?rid=${randomUUID()}`,
      { method: 'POST', body: 'nightly job done' },
    )
    expect(ping.status).toBe(200)
    const pingedAt = (
      JSON.parse(await readFile(stateFile, 'utf8')) as { states: Record<string, { lastPingAt: number }> }
    ).states[TOKEN]!.lastPingAt
    expect(pingedAt).toBeGreaterThan(0)
    await until(
      'two results and a slow run in flight',
      async () => (await results(resultsFile)).length >= 2 && slowArrived,
      first,
    )
    slowArrived = false
    first.child.kill('SIGKILL')
    expect((await first.exited).signal).toBe('SIGKILL')
    const before = await results(resultsFile)
    const beforeText = await readFile(resultsFile, 'utf8')

    const second = track(await started(dir, dataDir))
    // The state on disk survived the kill, whole.
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as {
      states: Record<string, { lastPingAt: number; lastSuccessAt: number }>
    }
    expect(state.states[TOKEN]).toMatchObject({ lastPingAt: pingedAt, lastSuccessAt: pingedAt })
    await until(
      'new results after the restart',
      async () => (await results(resultsFile)).length >= before.length + 3,
      second,
    )
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)

    const after = await results(resultsFile)
    const text = await readFile(resultsFile, 'utf8')
    expect(text.startsWith(beforeText)).toBe(true)
    const ids = after.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    // The restarted agent took the state over rather than starting afresh.
    const kept = JSON.parse(await readFile(stateFile, 'utf8')) as {
      states: Record<string, { lastPingAt: number }>
    }
    expect(kept.states[TOKEN]!.lastPingAt).toBe(pingedAt)
  }, 180_000)

  it('the data directory fills up: a clear error per lost result, no crash, no half line; recovery when space returns', async (context) => {
    if (process.getuid?.() !== 0) {
      context.skip()
      return
    }
    const port = await loopback((_request, response) => response.end('ok'))
    const dir = await checksDir({
      'disk.check.ts': `import { Frequency, HeartbeatMonitor, UrlMonitor } from 'outpost'
for (let i = 0; i < 5; i++) {
  new UrlMonitor('fill-' + i, { name: 'Fill ' + i, frequency: Frequency.EVERY_10S, request: { url: 'http://127.0.0.1:${port}/' + i } })
}
new HeartbeatMonitor('disk-heartbeat', { name: 'Disk heartbeat', period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes', pingToken: '${TOKEN}' })
`,
    })
    const dataDir = path.join(dir, 'data')
    await mkdir(dataDir)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dataDir])
    cleanup.push(() => {
      execFileSync('umount', ['-l', dataDir])
    })
    const resultsFile = path.join(dataDir, 'results.ndjson')
    const stateFile = path.join(dataDir, 'heartbeats', 'heartbeats.json')

    const agent = track(await started(dir, dataDir))
    const health = `http://127.0.0.1:${portFrom(agent, 'health server')}`
    const pingUrl = `http://127.0.0.1:${portFrom(agent, 'heartbeat ingress')}/ping/${TOKEN}`
    await until('first results', async () => (await results(resultsFile)).length >= 3, agent)

    // Fill the disk: dd stops at ENOSPC with the filesystem full.
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${path.join(dataDir, 'filler')}`, 'bs=64k'], {
        stdio: 'ignore',
      })
    } catch {
      // dd exits 1 on "No space left on device": that is the point.
    }
    const countWhenFull = (await results(resultsFile)).length
    await agent.waitForOutput(
      /could not write a result to .*results\.ndjson: ENOSPC: no space left on device.*the result is lost/,
      60_000,
    )
    // The heartbeat ingress says it failed rather than pretending; the state file stays whole.
    const refused = await fetch(pingUrl, { method: 'POST', body: 'while full' })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('10')
    expect(await refused.text()).toBe("ping not recorded: the agent's disk is full; try again")
    JSON.parse(await readFile(stateFile, 'utf8'))
    expect((await readdir(path.join(dataDir, 'heartbeats'))).filter((f) => f.endsWith('.tmp'))).toEqual([])
    expect((await fetch(`${health}/-/readiness`)).status).toBe(200)
    // Some lines may still fit in the file's last, already allocated page; every line is whole.
    expect((await results(resultsFile)).length).toBeGreaterThanOrEqual(countWhenFull)

    // Space comes back: results resume, whole lines only, and a ping is recorded again.
    await rm(path.join(dataDir, 'filler'))
    await until(
      'results after space returned',
      async () => (await results(resultsFile)).length >= countWhenFull + 3,
      agent,
    )
    expect((await fetch(pingUrl, { method: 'POST', body: 'space again' })).status).toBe(200)
    agent.child.kill('SIGTERM')
    const exit = await agent.exited
    expect(exit.code).toBe(0)
    expect(agent.output()).not.toMatch(/uncaught exception|unhandled promise rejection/)
    const text = await readFile(resultsFile, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    await results(resultsFile)
  }, 180_000)
})
