import { cp, rm, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RuntimeId } from '../../src/model/checks.ts'
import { createPlaywrightRunner } from '../../src/runner/index.ts'
import { verifyRuntime } from '../../src/runner/runtimes.ts'
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

const everydayLibraries = (url: string) => `
import { test, expect } from '@playwright/test'
import axios from 'axios'
import _ from 'lodash'
import dayjs from 'dayjs'
import { v4 as uuidv4 } from 'uuid'
import { z } from 'zod'
test('libraries', async ({ request }) => {
  await test.step('playwright request', async () => {
    expect((await request.get('${url}/json')).status()).toBe(200)
  })
  await test.step('axios and zod', async () => {
    const r = await axios.get('${url}/json')
    expect(z.object({ n: z.number() }).parse(r.data)).toEqual({ n: 1 })
  })
  await test.step('lodash dayjs uuid', async () => {
    expect(_.chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]])
    expect(dayjs('2024-01-02').format('YYYY')).toBe('2024')
    expect(uuidv4()).toMatch(/^[0-9a-f-]{36}$/)
  })
})
`

describe('runtimes', () => {
  let server: TestServer
  const { log, lines } = memoryLogger()
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it('runs the same check on each of the three runtimes, with its own Playwright', async () => {
    const runner = createPlaywrightRunner({
      runtimesDir: RUNTIMES_DIR,
      dataDir: testDataDir(),
      secrets: { values: [] },
      log,
      chromiumPath: '/usr/bin/chromium',
      env: process.env,
    })
    const statuses = await runner.verifyRuntimes()
    expect(statuses.map((s) => [s.id, s.available, s.playwrightVersion])).toEqual([
      ['2023.09', true, '1.38.1'],
      ['2025.04', true, '1.51.1'],
      ['2026.04', true, '1.58.2'],
    ])
    for (const runtimeId of RuntimeId) {
      const dir = await tempDir(`ms-rt-${runtimeId}-`)
      const out = await runner.multistep(
        multistep(everydayLibraries(server.url), { runtimeId }),
        context(log, dir.path),
      )
      expect({ runtimeId, error: out.error, steps: out.steps?.map((s) => s.status) }).toEqual({
        runtimeId,
        error: undefined,
        steps: ['passed', 'passed', 'passed'],
      })
      expect(out.details?.playwrightVersion).toBe(statuses.find((s) => s.id === runtimeId)?.playwrightVersion)
      await dir.remove()
    }
    await runner.close()
  })

  it('marks a runtime with a dangling dependency link unavailable, and its jobs fail with the reason', async () => {
    const dir = await tempDir('broken-runtimes-')
    await cp(join(RUNTIMES_DIR, '2026.04'), join(dir.path, '2026.04'), {
      recursive: true,
      verbatimSymlinks: true,
    })
    const zod = join(dir.path, '2026.04', 'node_modules', 'zod')
    await rm(zod, { recursive: true })
    await symlink(join(dir.path, 'nowhere'), zod)
    const status = await verifyRuntime(dir.path, '2026.04')
    expect(status.available).toBe(false)
    expect(status.missing).toEqual(['node_modules/zod'])

    const runner = createPlaywrightRunner({
      runtimesDir: dir.path,
      dataDir: testDataDir(),
      secrets: { values: [] },
      log,
      chromiumPath: '/usr/bin/chromium',
      env: process.env,
    })
    await runner.verifyRuntimes()
    expect(lines.some((l) => l.includes('runtime 2026.04 is broken') && l.includes('node_modules/zod'))).toBe(
      true,
    )
    const out = await runner.multistep(multistep('test("x", () => {})'), context(log, join(dir.path, 'run')))
    expect(out.status).toBe('failed')
    expect(out.error?.code).toBe('RUNTIME_UNAVAILABLE')
    expect(out.error?.message).toContain('node_modules/zod do not resolve')
    await dir.remove()
  })
})
