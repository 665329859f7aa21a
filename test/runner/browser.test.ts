import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlaywrightRunner } from '../../src/runner/index.ts'
import {
  browserCheck,
  context,
  memoryLogger,
  RUNTIMES_DIR,
  startServer,
  type TestServer,
  tempDir,
  testDataDir,
} from './helpers.ts'

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

describe('browser checks on Debian chromium', () => {
  let server: TestServer
  const { log } = memoryLogger()
  const runner = createPlaywrightRunner({
    runtimesDir: RUNTIMES_DIR,
    dataDir: testDataDir(),
    secrets: { values: [] },
    log,
    chromiumPath: '/usr/bin/chromium',
    env: process.env,
  })
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await runner.close()
    await server.close()
  })

  it('passes on a page that shows the heading, and keeps a screenshot of the page when it fails', async () => {
    const spec = (heading: string) => `
import { test, expect } from '@playwright/test'
test('page', async ({ page }) => {
  await test.step('open', async () => { await page.goto('${server.url}/page') })
  await test.step('heading', async () => {
    await expect(page.getByRole('heading')).toHaveText('${heading}', { timeout: 1000 })
  })
})
`
    const dir = await tempDir('br-')
    const ok = await runner.browser(browserCheck(spec('Outpost test page')), context(log, `${dir.path}/ok`))
    expect(ok.error).toBeUndefined()
    expect(ok.steps?.map((s) => s.status)).toEqual(['passed', 'passed'])
    expect(ok.artifacts?.map((a) => a.kind)).toEqual(['trace'])
    const requests = ok.details?.requests as { url: string; status: number; api: boolean }[]
    expect(requests).toContainEqual(
      expect.objectContaining({ url: `${server.url}/page`, status: 200, api: false }),
    )

    const bad = await runner.browser(browserCheck(spec('Another heading')), context(log, `${dir.path}/bad`))
    expect(bad.status).toBe('failed')
    expect(bad.steps?.map((s) => s.status)).toEqual(['passed', 'failed'])
    const shot = bad.artifacts?.find((a) => a.kind === 'screenshot')
    expect(shot?.name).toBe('screenshot-on-failure.png')
    const png = await readFile(shot?.location ?? '')
    expect(png.subarray(0, 8).equals(PNG_MAGIC)).toBe(true)
    expect(shot?.size).toBe(png.length)
    await dir.remove()
  })
})
