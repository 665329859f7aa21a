import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
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

const threeSteps = (url: string, failAt?: number) => `
import { test, expect } from '@playwright/test'
test('three steps', async ({ request }) => {
  await test.step('get ok', async () => {
    const r = await request.get('${url}${failAt === 1 ? '/fail' : '/ok'}')
    expect(r.status()).toBe(200)
    console.log('env', JSON.stringify({ SERVICE: process.env.SERVICE, CI: process.env.CI ?? null, API_KEY: process.env.API_KEY ?? null, MY_VAR: process.env.MY_VAR }))
  })
  await test.step('get json', async () => {
    const r = await request.get('${url}${failAt === 2 ? '/fail' : '/json'}')
    expect(r.status()).toBe(200)
  })
  await test.step("get ok again", async () => {
    const r = await request.get('${url}/ok?again=1')
    expect(r.status()).toBe(200)
  })
})
`

describe('multistep checks', () => {
  let server: TestServer
  const { log } = memoryLogger()
  const runner = createPlaywrightRunner({
    runtimesDir: RUNTIMES_DIR,
    dataDir: testDataDir(),
    secrets: { values: [] },
    log,
    chromiumPath: '/usr/bin/chromium',
    env: { ...process.env, API_KEY: 'agent-api-key-must-not-leak' },
  })
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await runner.close()
    await server.close()
  })

  it('runs a three-step check that passes, in a clean environment', async () => {
    const dir = await tempDir('ms-pass-')
    const out = await runner.multistep(
      multistep(threeSteps(server.url), { env: { MY_VAR: 'from-check' } }),
      context(log, dir.path),
    )
    expect(out.error).toBeUndefined()
    expect(out.status).toBe('passed')
    expect(out.details?.warmStart).toBe(false)
    expect(out.steps?.map((s) => [s.name, s.status])).toEqual([
      ['get ok', 'passed'],
      ['get json', 'passed'],
      ['get ok again', 'passed'],
    ])
    const envLine = out.logs?.find((l) => l.message.startsWith('env '))?.message ?? ''
    expect(JSON.parse(envLine.slice(4))).toEqual({
      SERVICE: '1',
      CI: null,
      API_KEY: null,
      MY_VAR: 'from-check',
    })
    const requests = out.details?.requests as { url: string; status: number }[]
    expect(requests.map((r) => [new URL(r.url).pathname, r.status])).toEqual([
      ['/ok', 200],
      ['/json', 200],
      ['/ok', 200],
    ])
    const trace = out.artifacts?.find((a) => a.kind === 'trace')
    expect(trace?.name).toBe('trace.zip')
    const bytes = await readFile(trace?.location ?? '')
    expect(trace?.size).toBe(bytes.length)
    expect(trace?.sha256).toBe(createHash('sha256').update(bytes).digest('hex'))
    await dir.remove()
  })

  it('fails at step 2, reports step 3 as not run, and sets CI only in a test session', async () => {
    const dir = await tempDir('ms-fail-')
    const out = await runner.multistep(
      multistep(threeSteps(server.url, 2)),
      context(log, dir.path, { testSession: true }),
    )
    expect(out.status).toBe('failed')
    expect(out.error?.code).toBe('TEST_FAILED')
    expect(out.error?.message).toContain('Received: 500')
    const [one, two, three] = out.steps ?? []
    expect([one?.status, two?.status, three?.status]).toEqual(['passed', 'failed', 'skipped'])
    expect(two?.error).toContain('Expected: 200')
    expect(three?.name).toBe('get ok again')
    expect(three?.error).toBe('not run: step "get json" failed before it')
    const envLine = out.logs?.find((l) => l.message.startsWith('env '))?.message ?? ''
    // Taken by a warm runner (started after the first run): the same clean environment, CI set.
    expect(out.details?.warmStart).toBe(true)
    expect(JSON.parse(envLine.slice(4))).toEqual({ SERVICE: '1', CI: 'true', API_KEY: null })
    await dir.remove()
  })

  it('runs an entrypoint that imports a file beside it', async () => {
    const dir = await tempDir('ms-entry-')
    const checks = join(dir.path, 'checks')
    await mkdir(checks)
    await writeFile(join(checks, 'helper.ts'), `export const path = (p: string) => '${server.url}' + p\n`)
    await writeFile(
      join(checks, 'api.spec.ts'),
      `import { test, expect } from '@playwright/test'
import { path } from './helper'
test('entry', async ({ request }) => {
  await test.step('uses helper', async () => {
    expect((await request.get(path('/json'))).status()).toBe(200)
  })
})
`,
    )
    const check = { ...multistep(''), code: { entrypoint: join(checks, 'api.spec.ts') } }
    const out = await runner.multistep(check, context(log, join(dir.path, 'run')))
    expect(out.error).toBeUndefined()
    expect(out.steps).toMatchObject([{ name: 'uses helper', status: 'passed' }])
    await dir.remove()
  })
})
