import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlaywrightRunner } from '../../src/runner/index.ts'
import {
  context,
  memoryLogger,
  multistep,
  RUNTIMES_DIR,
  startServer,
  type TestServer,
  tempDir,
  testDataDir,
} from './helpers.ts'

/** Running: exists and is not a zombie (a killed process waits for PID 1 to reap it; that is not ours to do). */
async function running(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  return state !== '' && state !== 'Z'
}

async function waitForFile(path: string, signal: AbortSignal): Promise<void> {
  // Bounded: the run's own timeout (60 s) ends the wait at worst.
  for (let i = 0; i < 600 && !signal.aborted; i++) {
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('run isolation', () => {
  let server: TestServer
  const { log } = memoryLogger()
  const runner = createPlaywrightRunner({
    runtimesDir: RUNTIMES_DIR,
    dataDir: testDataDir(),
    secrets: { values: [] },
    log,
    chromiumPath: '/usr/bin/chromium',
    env: process.env,
    heapMb: 96,
    graceMs: 500,
  })
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await runner.close()
    await server.close()
  })

  it('kills the whole process group at the timeout and leaves no process behind', async () => {
    const dir = await tempDir('ms-timeout-')
    const pidFile = join(dir.path, 'pids.json')
    const spec = `
import { test } from '@playwright/test'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
test('hangs', async ({ request }) => {
  await test.step('quick', async () => { await request.get('${server.url}/ok') })
  await test.step('hang', async () => {
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' })
    // One turn of the event loop lets the worker tell Playwright about the steps so far; then it
    // hangs so hard that only a kill ends it.
    await new Promise((r) => setTimeout(r, 100))
    writeFileSync(${JSON.stringify(pidFile)}, JSON.stringify([process.pid, process.ppid, sleeper.pid]))
    while (true) {}
  })
  await test.step('never', async () => {})
})
`
    const abort = new AbortController()
    const run = runner.multistep(
      multistep(spec),
      context(log, join(dir.path, 'run'), { signal: abort.signal }),
    )
    await waitForFile(pidFile, abort.signal)
    abort.abort()
    const out = await run
    const pids = JSON.parse(await readFile(pidFile, 'utf8')) as number[]
    expect(pids).toHaveLength(3)
    for (const pid of pids) expect({ pid, running: await running(pid) }).toEqual({ pid, running: false })
    expect(out.status).toBe('failed')
    expect(out.error?.code).toBe('TIMEOUT')
    expect(out.steps?.map((s) => [s.name, s.status])).toEqual([
      ['quick', 'passed'],
      ['hang', 'failed'],
      ['never', 'skipped'],
    ])
    expect(out.steps?.[1]?.error).toContain('did not finish: the run was stopped at its timeout')
    await dir.remove()
  })

  it("lets Playwright's own timeout end a hung step first, with the trace kept", async () => {
    const dir = await tempDir('ms-pwtimeout-')
    const spec = `
import { test } from '@playwright/test'
test('waits forever', async ({ request }) => {
  await test.step('quick', async () => { await request.get('${server.url}/ok') })
  await test.step('wait', async () => { await new Promise(() => {}) })
  await test.step('never', async () => {})
})
`
    // 4 s job: Playwright's test timeout is set 2 s below it, so it fires well before the agent's kill.
    const out = await runner.multistep(multistep(spec, { timeoutSeconds: 4 }), context(log, dir.path))
    expect(out.error?.code).toBe('TIMEOUT')
    expect(out.error?.message).toContain('Test timeout of 2000ms exceeded')
    expect(out.steps?.map((s) => [s.name, s.status])).toEqual([
      ['quick', 'passed'],
      ['wait', 'failed'],
      ['never', 'skipped'],
    ])
    expect(out.artifacts?.map((a) => a.name)).toEqual(['trace.zip'])
    await dir.remove()
  })

  it('reports a crashed run as failed with the reason, and an out-of-memory run as such', async () => {
    const dir = await tempDir('ms-crash-')
    const crash = `
import { test } from '@playwright/test'
test('crashes', async () => {
  await test.step('dies', async () => { process.kill(process.pid, 'SIGKILL') })
})
`
    const crashed = await runner.multistep(multistep(crash), context(log, join(dir.path, 'crash')))
    expect(crashed.status).toBe('failed')
    expect(crashed.error?.code).toBe('CRASHED')
    expect(crashed.error?.message).toMatch(/exited unexpectedly|SIGKILL/)

    const oom = `
import { test } from '@playwright/test'
test('grows', async () => {
  await test.step('allocate', async () => {
    const hoard: string[][] = []
    for (let i = 0; i < 1e7; i++) hoard.push(new Array(10000).fill('x'.repeat(8) + i))
  })
})
`
    const starved = await runner.multistep(multistep(oom), context(log, join(dir.path, 'oom')))
    expect(starved.status).toBe('failed')
    expect(starved.error?.code).toBe('OUT_OF_MEMORY')
    await dir.remove()
  })
})
