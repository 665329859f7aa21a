// The result spool against a real hub: a refused key stops delivery and keeps the files, a result the
// hub refuses for good is set aside without blocking the rest, a write cut off before its rename is
// discarded on start.

import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { HubRejectedKeyError } from '../../../src/agent/remote/errors.ts'
import { createHubClient, type HubClient } from '../../../src/agent/remote/hub-client.ts'
import { createSpoolSink, spooledRunIds } from '../../../src/agent/remote/spool-sink.ts'
import type { CheckResult } from '../../../src/model/result.ts'
import { captureLogger } from '../../helpers/capture-logger.ts'
import { startTestHub, type TestHub } from '../../hub/helpers/test-hub.ts'

function result(id: string, overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    id,
    checkId: 'spool-check',
    checkType: 'URL',
    name: 'spool',
    status: 'passed',
    startedAt: new Date().toISOString(),
    durationMs: 1,
    location: 'private',
    attempt: 1,
    assertions: [],
    artifacts: [],
    agent: { id: 'spool-agent', version: '7.0.1', flavor: 'full' },
    ...overrides,
  }
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`gave up waiting for ${what}`)
}

describe('result spool', () => {
  let hub: TestHub
  let dataDir: string
  const clients: HubClient[] = []
  beforeEach(async () => {
    hub = await startTestHub()
    dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-spool-'))
  })
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close()
    await hub.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  const client = (apiKey: string): HubClient => {
    const c = createHubClient({ baseUrl: hub.url, apiKey })
    clients.push(c)
    return c
  }
  const resultsAtHub = async (): Promise<string[]> =>
    (
      (await hub.api('/v1/check-results/spool-check?limit=100')).body as { entries: CheckResult[] }
    ).entries.map((r) => r.id)

  it('a refused key stops delivery with a clear message and keeps the results for the next start', async () => {
    const { log, lines } = captureLogger()
    let rejected: HubRejectedKeyError | undefined
    const sink = await createSpoolSink({
      client: client('op_wrong-key'),
      dataDir,
      log,
      onRejectedKey: (error) => {
        rejected = error
      },
    })
    await sink.write(result('kept-1'))
    await until(async () => rejected !== undefined, 'the rejection')
    expect(rejected?.message).toMatch(/rejected the API key \(401.*check API_KEY/)
    expect(lines().join('\n')).toMatch(/result delivery stopped: the hub at .* rejected the API key/)
    expect(lines().join('\n')).not.toContain('op_wrong-key')
    expect(await sink.pending()).toBe(1)
    expect(await sink.drain(50)).toBe(false)
    await sink.close()

    // The operator fixes the key: the same spool delivers on the next start.
    const fixed = await createSpoolSink({ client: client(hub.key), dataDir, log })
    await until(async () => (await fixed.pending()) === 0, 'delivery with the right key')
    await fixed.close()
    expect(await resultsAtHub()).toEqual(['kept-1'])
  })

  it('a result the hub refuses for good is set aside in spool/rejected; the others go through', async () => {
    const { log, lines } = captureLogger()
    const sink = await createSpoolSink({ client: client(hub.key), dataDir, log })
    await sink.write(result('good-1'))
    await sink.write(result('bad-1', { status: 'sideways' as CheckResult['status'] }))
    await sink.write(result('good-2'))
    expect(await sink.drain(20_000)).toBe(true)
    await sink.close()
    expect((await resultsAtHub()).sort()).toEqual(['good-1', 'good-2'])
    const setAside = await readdir(path.join(dataDir, 'spool', 'rejected'))
    expect(setAside).toHaveLength(1)
    expect(setAside[0]).toContain('bad-1')
    expect(lines().join('\n')).toMatch(/refused result bad-1 for good .*status/)
  })

  it('drops a write cut off before its rename, and delivers complete files left from the last run', async () => {
    const spoolDir = path.join(dataDir, 'spool', 'results')
    await mkdir(spoolDir, { recursive: true })
    await writeFile(path.join(spoolDir, '000000000000001-000000-torn.json.tmp'), '{"id":"torn","chec')
    await writeFile(
      path.join(spoolDir, '000000000000002-000000-left-1.json'),
      JSON.stringify(result('left-1')),
    )
    const { log, lines } = captureLogger()
    const sink = await createSpoolSink({ client: client(hub.key), dataDir, log })
    await until(async () => (await sink.pending()) === 0, 'the leftover to be delivered')
    await sink.close()
    expect(await readdir(spoolDir)).toEqual([])
    expect(await resultsAtHub()).toEqual(['left-1'])
    expect(lines().join('\n')).toMatch(
      /discarded 1 incomplete spool write\(s\) left by an agent stopped mid-write/,
    )
  })

  it('a spool file that is not a whole result is set aside with a warning and does not block the rest', async () => {
    const spoolDir = path.join(dataDir, 'spool', 'results')
    await mkdir(spoolDir, { recursive: true })
    await writeFile(path.join(spoolDir, '000000000000001-000000-cut.json'), '{"id":"cut","status":"pas')
    await writeFile(path.join(spoolDir, '000000000000002-000000-null.json'), 'null')
    await writeFile(
      path.join(spoolDir, '000000000000003-000000-after-1.json'),
      JSON.stringify(result('after-1')),
    )
    const { log, lines } = captureLogger()
    const sink = await createSpoolSink({ client: client(hub.key), dataDir, log })
    await sink.write(result('after-2'))
    expect(await sink.drain(20_000)).toBe(true)
    await sink.close()
    expect((await resultsAtHub()).sort()).toEqual(['after-1', 'after-2'])
    expect((await readdir(path.join(dataDir, 'spool', 'rejected'))).sort()).toEqual([
      '000000000000001-000000-cut.json',
      '000000000000002-000000-null.json',
    ])
    const logged = lines().join('\n')
    expect(logged).toMatch(/spool file 000000000000001-000000-cut.json is not a whole result \(.*JSON/)
    expect(logged).toMatch(
      /spool file 000000000000002-000000-null.json is not a whole result \(not an object/,
    )
  })

  it('tells which run ids have a result waiting in the spool', async () => {
    const { log } = captureLogger()
    // Unreachable hub: the results stay in the spool.
    const offline = createHubClient({ baseUrl: 'http://127.0.0.1:9', apiKey: hub.key })
    clients.push(offline)
    const sink = await createSpoolSink({ client: offline, dataDir, log })
    await sink.write(result('run-a'))
    await sink.write(result('x-run-a'))
    await sink.write(result('run/with spaces'))
    await sink.flush()
    expect(
      await spooledRunIds(dataDir, ['run-a', 'x-run-a', 'run/with spaces', 'run-b', 'a', 'spaces']),
    ).toEqual(new Set(['run-a', 'x-run-a', 'run/with spaces']))
    expect(await spooledRunIds(path.join(dataDir, 'nowhere'), ['run-a'])).toEqual(new Set())
    await sink.close()
  })

  it('the same result written twice (a crash between delivery and delete) is counted once', async () => {
    const { log } = captureLogger()
    const sink = await createSpoolSink({ client: client(hub.key), dataDir, log })
    await sink.write(result('twice'))
    expect(await sink.drain(20_000)).toBe(true)
    await sink.write(result('twice'))
    expect(await sink.drain(20_000)).toBe(true)
    await sink.close()
    expect(await resultsAtHub()).toEqual(['twice'])
  })

  it('a write that fails (the spool directory gone for a moment) does not fail the writes after it', async () => {
    const { log } = captureLogger()
    const sink = await createSpoolSink({ client: client(hub.key), dataDir, log })
    await sink.write(result('before'))
    expect(await sink.drain(20_000)).toBe(true)
    // The directory replaced by a file: every open in it fails (ENOTDIR), as on a broken disk.
    const spoolDir = path.join(dataDir, 'spool', 'results')
    const movedAway = path.join(dataDir, 'spool', 'moved-away')
    await rename(spoolDir, movedAway)
    await writeFile(spoolDir, '')
    await expect(sink.write(result('lost'))).rejects.toThrow(/ENOTDIR/)
    await rm(spoolDir)
    await rename(movedAway, spoolDir)
    await sink.write(result('after'))
    expect(await sink.drain(20_000)).toBe(true)
    await sink.close()
    expect((await resultsAtHub()).sort()).toEqual(['after', 'before'])
    expect((await readdir(spoolDir)).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })
})
