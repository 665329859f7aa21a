// Hostile multistep scripts against the real agent (child process, real Playwright runner): a script
// that loops forever, allocates without end, forks children, floods stdout, or hunts for the agent's
// API_KEY. Each is stopped and reported; a steady URL monitor beside them keeps passing; readiness
// stays 200; nothing is left running; the key shows up nowhere.

import { randomUUID } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CheckResult } from '../../src/model/result.ts'
import { type AgentProcess, spawnAgent } from '../helpers/agent-process.ts'
import { type HostileCase, hostileScripts } from './hostile-scripts.ts'
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts'

const API_KEY = `ak_${randomUUID().replaceAll('-', '')}`
const SECRET = `sv_${randomUUID().replaceAll('-', '')}`
const reversed = (s: string): string => [...s].reverse().join('')

async function readResults(file: string): Promise<CheckResult[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CheckResult)
}

/** Pids of live processes whose command line holds `needle` (the hostile scripts tag what they start). */
async function processesWith(needle: string): Promise<number[]> {
  const found: number[] = []
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
    const state = stat.charAt(stat.lastIndexOf(')') + 2)
    if (cmdline.includes(needle) && state !== 'Z' && state !== '') found.push(pid)
  }
  return found
}

describe('hostile multistep checks against the real agent', () => {
  const tag = `31${Math.floor(Math.random() * 1e6)}`
  let server: LoopbackServer
  let agent: AgentProcess
  let dir: string
  let resultsFile: string
  let base: string
  const readiness: number[] = []
  let polling: NodeJS.Timeout | undefined
  let cases: HostileCase[]

  beforeAll(async () => {
    server = await startLoopbackServer()
    cases = hostileScripts({ tag, exfilUrl: `${server.url}/exfil` })
    dir = await mkdtemp(path.join(tmpdir(), 'outpost-hostile-'))
    await writeFile(
      path.join(dir, 'steady.check.ts'),
      `import { Frequency, UrlMonitor } from 'outpost'
new UrlMonitor('steady', {
  name: 'Steady',
  frequency: Frequency.EVERY_10S,
  request: { url: '${server.url}/ok' },
})
`,
    )
    for (const c of cases) {
      await writeFile(
        path.join(dir, `${c.id}.check.ts`),
        `import { Frequency, MultiStepCheck } from 'outpost'
new MultiStepCheck(${JSON.stringify(c.id)}, {
  name: ${JSON.stringify(c.id)},
  frequency: Frequency.EVERY_1M,
  timeoutSeconds: ${c.timeoutSeconds},
  environmentVariables: [{ key: 'SERVICE_SECRET_TOKEN', value: ${JSON.stringify(SECRET)}, secret: true }],
  code: { content: ${JSON.stringify(c.script)} },
})
`,
      )
    }
    const dataDir = path.join(dir, 'data')
    resultsFile = path.join(dataDir, 'results.ndjson')
    agent = spawnAgent(['agent', '--checks', dir], {
      AGENT_HEALTH_PORT: '0',
      AGENT_HEARTBEAT_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
      AGENT_DATA_DIR: dataDir,
      API_KEY,
      EXTERNAL_OBSERVABILITY: 'off',
      JOB_CONCURRENCY: '1',
    })
    await agent.waitForOutput(/health server listening on 127\.0\.0\.1:(\d+)/, 60_000)
    base = `http://127.0.0.1:${/health server listening on 127\.0\.0\.1:(\d+)/.exec(agent.output())![1]}`
    await agent.waitForOutput(/agent ready/, 60_000)
    polling = setInterval(() => {
      fetch(`${base}/-/readiness`).then(
        (r) => readiness.push(r.status),
        () => readiness.push(0),
      )
    }, 500)
    // Every hostile check has a result (they run one at a time on the heavy queue). Bounded.
    for (let i = 0; i < 600; i++) {
      const results = await readResults(resultsFile)
      if (cases.every((c) => results.some((r) => r.checkId === c.id))) break
      if (agent.child.exitCode !== null) break
      await new Promise((r) => setTimeout(r, 500))
    }
    clearInterval(polling)
    agent.child.kill('SIGTERM')
    await agent.exited
  }, 400_000)

  afterAll(async () => {
    clearInterval(polling)
    if (agent && agent.child.exitCode === null) agent.child.kill('SIGKILL')
    await server?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('stops each hostile script and reports it as failed with a clear reason', async () => {
    const results = await readResults(resultsFile)
    for (const c of cases) {
      const r = results.find((x) => x.checkId === c.id)
      // The figures docs/reliability.md quotes.
      console.log(`hostile ${c.id}: ${r?.status} ${r?.error?.code ?? ''} after ${r?.durationMs} ms`)
    }
    for (const c of cases.filter((x) => x.expect !== undefined)) {
      const first = results.find((r) => r.checkId === c.id)
      expect(first, `${c.id} has a result`).toBeDefined()
      expect(first!.status, `${c.id}: ${JSON.stringify(first!.error)}`).toBe('failed')
      expect(first!.error?.code).toMatch(c.expect!.code)
      expect(first!.error?.message).toMatch(c.expect!.message)
    }
  })

  it('keeps the first megabyte of a flood of output and says the rest was dropped', async () => {
    const flood = (await readResults(resultsFile)).find((r) => r.checkId === 'floods-stdout')
    const messages = (flood?.logs ?? []).map((l) => l.message)
    expect(messages.some((m) => m.includes('[outpost: output beyond 1048576 characters is not kept]'))).toBe(
      true,
    )
    // The whole results file stays small: megabytes of output never reach it.
    expect((await readFile(resultsFile)).length).toBeLessThan(2_000_000)
  })

  it('the agent is unaffected: exit 0 after SIGTERM, readiness 200 throughout, the steady monitor kept passing', async () => {
    expect((await agent.exited).code).toBe(0)
    expect(agent.output()).not.toMatch(/uncaught exception|unhandled promise rejection|"level":60/)
    expect(readiness.length).toBeGreaterThan(10)
    expect(readiness.filter((s) => s !== 200)).toEqual([])
    const steady = (await readResults(resultsFile)).filter((r) => r.checkId === 'steady')
    expect(steady.length).toBeGreaterThanOrEqual(3)
    expect(steady.filter((r) => r.status !== 'passed')).toEqual([])
  })

  it('leaves no process behind (children, detached and environment-less ones too)', async () => {
    // The scripts start `sleep <tag>...` processes; give killed ones a moment to be reaped.
    let left: number[] = []
    for (let i = 0; i < 50; i++) {
      left = await processesWith(tag)
      if (left.length === 0) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(left).toEqual([])
  })

  it('the API key reaches no check: not in its environment, not in the parent environ, not in ps output', async () => {
    const reports = server.received.filter((r) => r.url.startsWith('/exfil'))
    expect(reports.length).toBeGreaterThan(0)
    for (const report of reports) {
      const found = JSON.parse(report.body) as { source: string; cmd?: string; values: string[] }[]
      // The script reports every API_KEY value it could find, reversed to slip past the scrubber.
      expect(found.flatMap((f) => f.values)).not.toContain(reversed(API_KEY))
      expect(found.find((f) => f.source === 'process.env')?.values).toEqual([])
      // It did reach the agent process itself (its parent or grandparent).
      const agentEntries = found.filter((f) => f.cmd?.includes('bin/outpost.mjs'))
      expect(agentEntries.length).toBeGreaterThan(0)
      // What it finds there is the blanked value: the agent overwrote its environment block in place.
      for (const entry of agentEntries) for (const value of entry.values) expect(value).toMatch(/^\*+$/)
      expect(report.body).not.toContain(API_KEY)
      expect(report.body).not.toContain(reversed(API_KEY))
    }
  })

  it('no secret in any output: results file, agent logs', async () => {
    const results = await readFile(resultsFile, 'utf8')
    for (const secret of [API_KEY, SECRET]) {
      expect(results).not.toContain(secret)
      expect(agent.output()).not.toContain(secret)
    }
  })
})
