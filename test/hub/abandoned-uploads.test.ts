// A hub killed mid-upload leaves `<name>.<pid>.<ms>.partial` behind. The next start removes the ones
// nobody writes to any more, and nothing else: not finished artifacts, not an upload still going.

import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ABANDONED_UPLOAD_AGE_MS, removeAbandonedUploads } from '../../src/hub/abandoned-uploads.ts'
import { startTestHub, type TestHub } from './helpers/test-hub.ts'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function artifactsTree(): Promise<{ dataDir: string; stale: string; live: string; whole: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-uploads-'))
  dirs.push(dataDir)
  const runDir = path.join(dataDir, 'artifacts', 'account-1', 'run-1')
  await mkdir(runDir, { recursive: true })
  const stale = path.join(runDir, 'trace.zip.4242.1700000000000.partial')
  const live = path.join(runDir, 'screenshot.png.4243.1700000000001.partial')
  const whole = path.join(runDir, 'report.json')
  await writeFile(stale, Buffer.alloc(2048))
  await writeFile(live, Buffer.alloc(512))
  await writeFile(whole, '{}')
  // The stale upload was last written to longer ago than the limit; so was the finished artifact.
  const past = new Date(Date.now() - ABANDONED_UPLOAD_AGE_MS - 60_000)
  await utimes(stale, past, past)
  await utimes(whole, past, past)
  return { dataDir, stale, live, whole }
}

describe('abandoned artifact uploads', () => {
  it('removes partial files nobody has written to for a while, and only those', async () => {
    const { dataDir, stale, live, whole } = await artifactsTree()
    const swept = await removeAbandonedUploads({ artifactsDir: path.join(dataDir, 'artifacts') })
    expect(swept).toEqual({ removed: [stale], bytes: 2048 })
    const left = await readdir(path.dirname(stale))
    expect(left.sort()).toEqual([path.basename(whole), path.basename(live)].sort())
  })

  it('is content with a hub that never stored an artifact', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-uploads-'))
    dirs.push(dataDir)
    expect(await removeAbandonedUploads({ artifactsDir: path.join(dataDir, 'artifacts') })).toEqual({
      removed: [],
      bytes: 0,
    })
  })

  it('runs when the hub starts', async () => {
    const { dataDir, stale, live, whole } = await artifactsTree()
    let hub: TestHub | undefined
    try {
      hub = await startTestHub({ dataDir })
      const runDir = path.dirname(stale)
      const deadline = Date.now() + 10_000
      let left = await readdir(runDir)
      while (left.includes(path.basename(stale)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        left = await readdir(runDir)
      }
      expect(left.sort()).toEqual([path.basename(whole), path.basename(live)].sort())
      expect((await hub.api('/-/readiness', { key: null })).status).toBe(200)
    } finally {
      await hub?.close()
    }
  })
})
