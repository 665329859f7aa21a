import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PlaywrightCheckSuite } from '../../src/model/checks.ts'
import { createPlaywrightRunner } from '../../src/runner/index.ts'
import {
  context,
  memoryLogger,
  multistep,
  RUNTIMES_DIR,
  startServer,
  type TestServer,
  tempDir,
} from './helpers.ts'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/runner')

function suite(
  name: string,
  baseUrl: string,
  extra: Partial<PlaywrightCheckSuite> = {},
): PlaywrightCheckSuite {
  const { code: _code, runtimeId: _runtimeId, ...base } = multistep('')
  return {
    ...base,
    logicalId: name,
    name,
    type: 'PLAYWRIGHT',
    playwrightConfigPath: join(FIXTURES, name, 'playwright.config.js'),
    pwProjects: [],
    pwTags: [],
    environmentVariables: [{ key: 'BASE_URL', value: baseUrl }],
    ...extra,
  }
}

describe('Playwright check suites', () => {
  let server: TestServer
  let data: Awaited<ReturnType<typeof tempDir>>
  const { log, lines } = memoryLogger()
  const runner = () =>
    createPlaywrightRunner({
      runtimesDir: RUNTIMES_DIR,
      dataDir: data.path,
      secrets: { values: [] },
      log,
      chromiumPath: '/usr/bin/chromium',
      env: process.env,
      progressEveryMs: 250,
    })
  beforeAll(async () => {
    server = await startServer()
    data = await tempDir('suite-data-')
  })
  afterAll(async () => {
    await server.close()
    await data.remove()
  })

  it('installs an npm suite once, runs it with SERVICE=1, and sets CI only in a test session', async () => {
    const first = await runner().suite(suite('suite-npm', server.url), context(log, join(data.path, 'run1')))
    expect(first.error).toBeUndefined()
    expect(first.details).toMatchObject({ packageManager: 'npm', installCached: false })
    expect(first.steps?.map((s) => [s.name, s.status])).toEqual([
      ['api › api.spec.js › runs with the service environment @smoke', 'passed'],
      ['api › api.spec.js › reads json', 'passed'],
    ])
    expect(first.logs?.map((l) => l.message)).toContain('env SERVICE=1 CI=unset')
    const report = first.artifacts?.find((a) => a.kind === 'report')
    expect(JSON.parse(await readFile(report?.location ?? '', 'utf8')).stats.expected).toBe(2)
    expect(lines.some((l) => l.includes('check suite still running') && l.includes('elapsedMs'))).toBe(true)

    const second = await runner().suite(
      suite('suite-npm', server.url, { pwTags: ['@smoke'] }),
      context(log, join(data.path, 'run2'), { testSession: true }),
    )
    expect(second.error).toBeUndefined()
    expect(second.details).toMatchObject({ packageManager: 'npm', installCached: true })
    expect(second.steps).toHaveLength(1)
    expect(second.logs?.map((l) => l.message)).toContain('env SERVICE=1 CI=true')
  })

  it('installs a bun suite with bun', async () => {
    const out = await runner().suite(suite('suite-bun', server.url), context(log, join(data.path, 'run3')))
    expect(out.error).toBeUndefined()
    expect(out.details).toMatchObject({ packageManager: 'bun', installCached: false })
    expect(out.steps?.map((s) => s.status)).toEqual(['passed', 'passed'])
  })
})
