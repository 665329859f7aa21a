// `outpost test` as a user runs it: the real CLI in a child process, real checks, a real server.

import { execFile } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CheckResult } from '../../src/model/result.ts'

const root = path.resolve(import.meta.dirname, '../..')
let server: Server
let dir: string

function outpost(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin/outpost.mjs'), ...args],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          AGENT_DATA_DIR: path.join(dir, 'data'),
          AGENT_HEALTH_PORT: '0',
          AGENT_LISTEN_HOST: '127.0.0.1',
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    )
  })
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/slow') setTimeout(() => response.end('slow'), 300)
    else if (request.url === '/broken') response.writeHead(500).end('broken')
    else response.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  dir = await mkdtemp(path.join(tmpdir(), 'outpost-test-cmd-'))
  const monitor = (id: string, urlPath: string, extra = '') =>
    `new UrlMonitor('${id}', { name: '${id} page', request: { url: 'http://127.0.0.1:${port}${urlPath}' }${extra} })\n`
  await writeFile(
    path.join(dir, 'site.check.ts'),
    `import { UrlMonitor } from 'outpost'\n${monitor('home', '/')}${monitor('slow', '/slow', ', degradedResponseTime: 100, maxResponseTime: 5000')}${monitor('broken', '/broken')}`,
  )
})

afterAll(() => server.close())

describe('outpost test', () => {
  it('lists progress and a summary counting passed, degraded and failed; exit 1 when one failed', async () => {
    const { code, stdout } = await outpost(['test', dir])
    expect(code).toBe(1)
    expect(stdout).toMatch(/✔ passed +\[\d\/3\] URL +home/)
    expect(stdout).toMatch(/◐ degraded +\[\d\/3\] URL +slow/)
    expect(stdout).toMatch(/✖ failed +\[\d\/3\] URL +broken/)
    expect(stdout).toMatch(/^Summary: 1 passed, 1 degraded, 1 failed \(/m)
  })

  it('prints only a JSON array of CheckResult with --reporter json', async () => {
    const { code, stdout } = await outpost(['test', dir, '--reporter', 'json'])
    expect(code).toBe(1)
    const results = JSON.parse(stdout) as CheckResult[]
    expect(results.map((r) => [r.checkId, r.status])).toEqual([
      ['home', 'passed'],
      ['slow', 'degraded'],
      ['broken', 'failed'],
    ])
    expect(results.every((r) => r.sessionId === results[0]!.sessionId && r.sessionId)).toBe(true)
  })

  it('writes JUnit XML with the failure in it', async () => {
    const { code, stderr } = await outpost(['test', dir, '--reporter', 'junit', '--output', 'report.xml'])
    expect(code).toBe(1)
    expect(stderr).toContain('junit report written to report.xml')
    const xml = await readFile(path.join(dir, 'report.xml'), 'utf8')
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/)
    expect(xml).toContain('<testsuites name="outpost" tests="3" failures="1"')
    expect(xml).toMatch(
      /<testcase classname="outpost.URL" name="broken page \(broken\)"[^>]*>\s*<failure message="ASSERTION_FAILED/,
    )
  })

  it('exits 0 when the checks --grep selects all pass', async () => {
    const { code, stdout } = await outpost(['test', dir, '--grep', '^home$', '--reporter', 'json'])
    expect(code).toBe(0)
    expect((JSON.parse(stdout) as CheckResult[]).map((r) => r.checkId)).toEqual(['home'])
  })

  it.each([
    [['--reporter', 'html'], '--reporter "html" is not valid: expected one of list, json, junit'],
    [['--grep', '('], '--grep "(" is not a valid regular expression'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('refuses %j with exit 2', async (extra, message) => {
    const { code, stderr } = await outpost(['test', dir, ...extra])
    expect(code).toBe(2)
    expect(stderr).toContain(message)
  })
})
