// `npm start` as a new user meets it: the real CLI in a child process prints the hub's URL, API key
// and account; the key opens the public API; local results reach the hub; `outpost test --hub` and
// `outpost deploy` work against it; SIGTERM stops everything with exit 0.

import { execFile } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CheckResult } from '../../src/model/result.ts'
import { spawnAgent } from '../helpers/agent-process.ts'

const root = path.resolve(import.meta.dirname, '../..')
let server: Server
let dir: string

function outpost(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin/outpost.mjs'), ...args],
      { env: { PATH: process.env.PATH ?? '', AGENT_DATA_DIR: path.join(dir, 'cli-data'), ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    )
  })
}

beforeAll(async () => {
  server = createServer((_request, response) => response.end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  dir = await mkdtemp(path.join(tmpdir(), 'outpost-all-in-one-'))
  await writeFile(
    path.join(dir, 'site.check.ts'),
    `import { Frequency, UrlMonitor } from 'outpost'
new UrlMonitor('site', {
  name: 'Site',
  frequency: Frequency.EVERY_10S,
  request: { url: 'http://127.0.0.1:${(server.address() as AddressInfo).port}/' },
})
`,
  )
})

afterAll(() => server.close())

describe('outpost start (npm start)', () => {
  it('serves the hub with a printed key, reports results there, and runs hub sessions', async () => {
    const agent = spawnAgent(['start', '--checks', dir], {
      AGENT_DATA_DIR: path.join(dir, 'data'),
      AGENT_HEALTH_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
    })
    try {
      await agent.waitForOutput(/^Account: \S+$/m)
      const hubUrl = /^Hub: (http:\/\/127\.0\.0\.1:\d+) /m.exec(agent.output())![1]!
      const apiKey = /^API key: (\S+)$/m.exec(agent.output())![1]!
      const auth = { authorization: `Bearer ${apiKey}` }
      await agent.waitForOutput(/agent ready: 1 check\(s\)/)

      expect((await fetch(`${hubUrl}/v1/status-pages/incidents`)).status).toBe(401)
      const incidents = await fetch(`${hubUrl}/v1/status-pages/incidents`, { headers: auth })
      expect(incidents.status).toBe(200)
      expect(await incidents.json()).toEqual({ length: 0, entries: [], nextId: null })

      // The local schedule's result arrives at the hub through the agent's spool.
      let delivered: CheckResult[] = []
      for (let i = 0; i < 150 && delivered.length === 0; i++) {
        const page = await fetch(`${hubUrl}/v1/check-results/site`, { headers: auth })
        delivered = ((await page.json()) as { entries: CheckResult[] }).entries
        if (delivered.length === 0) await new Promise((resolve) => setTimeout(resolve, 200))
      }
      expect(delivered[0]).toMatchObject({ checkId: 'site', status: 'passed' })

      const hubEnv = { SERVICE_API_URL: hubUrl, API_KEY: apiKey }
      const session = await outpost(['test', dir, '--hub', '--reporter', 'json'], hubEnv)
      expect(session.code).toBe(0)
      const sessionResults = JSON.parse(session.stdout) as CheckResult[]
      expect(sessionResults.map((r) => [r.checkId, r.status])).toEqual([['site', 'passed']])
      expect(sessionResults[0]!.sessionId).toBeTruthy()

      const deployed = await outpost(['deploy', dir], hubEnv)
      expect(deployed.code).toBe(0)
      expect(deployed.stdout).toMatch(/deployed 1 check\(s\) to .*: 1 created, 0 updated, 0 deleted/)
      const refused = await outpost(['deploy', dir], { ...hubEnv, API_KEY: 'op_not-a-key' })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('rejected the API key')
      expect(refused.stderr).not.toContain('op_not-a-key')
    } finally {
      agent.child.kill('SIGTERM')
    }
    expect((await agent.exited).code).toBe(0)
    // The key is printed once in the banner for the user, and never in a log line.
    const apiKey = /^API key: (\S+)$/m.exec(agent.output())![1]!
    const logLines = agent
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    expect(logLines.some((l) => l.includes(apiKey))).toBe(false)
  })
})
