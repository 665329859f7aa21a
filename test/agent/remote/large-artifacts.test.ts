// Artifacts at the size limit: a 149 MiB file uploads, streamed (the agent's memory stays flat, and
// the figures are printed); a 151 MiB file is not uploaded and its result says so with its size. The
// hub is the real `outpost hub` command in its own process, so this process's memory is the agent side's.

import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createHubClient } from '../../../src/agent/remote/hub-client.ts'
import { createSpoolSink } from '../../../src/agent/remote/spool-sink.ts'
import type { CheckResult } from '../../../src/model/result.ts'
import { captureLogger } from '../../helpers/capture-logger.ts'
import { type Child, spawnScript } from '../../hub/helpers/child.ts'

const MiB = 1024 * 1024
const root = path.resolve(import.meta.dirname, '../../..')
let dir: string
let hub: Child

async function writeFileOfSize(file: string, bytes: number): Promise<void> {
  const chunk = Buffer.alloc(MiB, 'outpost artifact bytes ')
  const out = createWriteStream(file)
  for (let written = 0; written < bytes; written += MiB) {
    if (!out.write(chunk.subarray(0, Math.min(MiB, bytes - written)))) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'outpost-large-artifacts-'))
  hub = spawnScript(
    path.join(root, 'test/hub/fixtures/hub-main.ts'),
    { HUB_PORT: '0', HUB_DATA_DIR: path.join(dir, 'hub'), LOG_LEVEL: 'warn' },
    root,
  )
  await hub.waitFor(/^API key: \S+$/m)
})

afterAll(async () => {
  await hub?.kill()
  await rm(dir, { recursive: true, force: true })
})

it('uploads 149 MiB streamed with flat memory, and refuses 151 MiB naming its size', async () => {
  const hubUrl = /listening on (http:\/\/\S+)/.exec(hub.output())![1]!
  const apiKey = /^API key: (\S+)$/m.exec(hub.output())![1]!
  const dataDir = path.join(dir, 'agent')
  const runDir = path.join(dataDir, 'runs', 'run-large')
  await mkdir(runDir, { recursive: true })
  await writeFileOfSize(path.join(runDir, 'fits.bin'), 149 * MiB)
  await writeFileOfSize(path.join(runDir, 'too-big.bin'), 151 * MiB)

  const { log, lines } = captureLogger()
  const client = createHubClient({ baseUrl: hubUrl, apiKey })
  const sink = await createSpoolSink({ client, dataDir, log })
  const artifact = (name: string, size: number) => ({
    name,
    kind: 'file',
    size,
    sha256: 'unchecked',
    location: `runs/run-large/${name}`,
  })
  const result: CheckResult = {
    id: 'run-large',
    checkId: 'large-artifacts',
    checkType: 'MULTI_STEP',
    name: 'Large artifacts',
    status: 'passed',
    startedAt: new Date().toISOString(),
    durationMs: 1,
    location: 'private',
    attempt: 1,
    assertions: [],
    artifacts: [artifact('fits.bin', 149 * MiB), artifact('too-big.bin', 151 * MiB)],
    agent: { id: 'agent-large', version: '7.0.1', flavor: 'full' },
  }

  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  let samples = 0
  const sampler = setInterval(() => {
    // Collect first where the runtime allows it, so the figure is memory held, not garbage waiting.
    if (++samples % 10 === 0) global.gc?.()
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 10)
  await sink.write(result)
  const delivered = await sink.drain(120_000)
  clearInterval(sampler)
  await sink.close()
  await client.close()
  expect(delivered).toBe(true)

  const growthMiB = (peak - before) / MiB
  console.log(
    `agent RSS while uploading 149 MiB: before ${(before / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${growthMiB.toFixed(1)} MiB`,
  )
  // Buffering the file whole would add at least its 149 MiB; streaming adds a few buffers.
  expect(growthMiB).toBeLessThan(80)

  const page = await fetch(`${hubUrl}/v1/check-results/large-artifacts`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  const [stored] = ((await page.json()) as { entries: CheckResult[] }).entries
  const fits = stored!.artifacts.find((a) => a.name === 'fits.bin')!
  const tooBig = stored!.artifacts.find((a) => a.name === 'too-big.bin')!
  expect(fits.location).toBe('/v1/artifacts/run-large/fits.bin')
  expect(tooBig.note).toBe(`not uploaded: ${151 * MiB} bytes is over the hub's limit of ${150 * MiB}`)
  expect(lines().some((l) => l.includes('"size":158334976') && l.includes('too-big.bin'))).toBe(true)

  const download = await fetch(`${hubUrl}${fits.location}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  let received = 0
  for await (const chunk of download.body!) received += (chunk as Uint8Array).length
  expect(received).toBe(149 * MiB)
})
