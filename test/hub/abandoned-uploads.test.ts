// A hub killed mid-upload leaves `.<name>.<pid>.<ms>.partial` behind. The next start removes the ones
// nobody writes to any more, and nothing else: not finished artifacts (even one whose name ends in
// `.partial`), not an upload still going.

import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ABANDONED_UPLOAD_AGE_MS,
  partialUploadPath,
  removeAbandonedUploads,
} from '../../src/hub/abandoned-uploads.ts'
import { startTestHub, type TestHub } from './helpers/test-hub.ts'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

interface Tree {
  dataDir: string
  stale: string
  live: string
  /** Finished artifacts, last written long ago: one of them is called `x.partial`, a valid name. */
  whole: string[]
}

async function artifactsTree(): Promise<Tree> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-uploads-'))
  dirs.push(dataDir)
  const runDir = path.join(dataDir, 'artifacts', 'account-1', 'run-1')
  await mkdir(runDir, { recursive: true })
  const stale = partialUploadPath(runDir, 'trace.zip', () => 1700000000000)
  const live = partialUploadPath(runDir, 'screenshot.png', () => 1700000000001)
  const whole = ['report.json', 'x.partial', 'build.4242.1700000000000.partial'].map((name) =>
    path.join(runDir, name),
  )
  await writeFile(stale, Buffer.alloc(2048))
  await writeFile(live, Buffer.alloc(512))
  for (const file of whole) await writeFile(file, '{}')
  // The stale upload was last written to longer ago than the limit; so were the finished artifacts.
  const past = new Date(Date.now() - ABANDONED_UPLOAD_AGE_MS - 60_000)
  for (const file of [stale, ...whole]) await utimes(file, past, past)
  return { dataDir, stale, live, whole }
}

describe('abandoned artifact uploads', () => {
  it('removes partial uploads nobody has written to for a while, and only those', async () => {
    const { dataDir, stale, live, whole } = await artifactsTree()
    const swept = await removeAbandonedUploads({ artifactsDir: path.join(dataDir, 'artifacts') })
    expect(swept).toEqual({ removed: [stale], bytes: 2048 })
    const left = await readdir(path.dirname(stale))
    expect(left.sort()).toEqual([...whole, live].map((file) => path.basename(file)).sort())
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
      expect(left.sort()).toEqual([...whole, live].map((file) => path.basename(file)).sort())
      expect((await hub.api('/-/readiness', { key: null })).status).toBe(200)
    } finally {
      await hub?.close()
    }
  })
})
