// The heartbeat subsystem as the agent starts it: ingress, store, probe and the ping URLs it logs.

import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startHeartbeatService } from '../../src/heartbeat/service.ts'
import type { HeartbeatCheck } from '../../src/model/checks.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { createLogger } from '../../src/telemetry/logger.ts'

const check: HeartbeatCheck = {
  type: 'HEARTBEAT',
  logicalId: 'db-dump',
  name: 'DB dump',
  activated: true,
  muted: false,
  tags: [],
  frequencySeconds: 300,
  locations: [],
  privateLocations: [],
  retryStrategy: {
    type: 'NONE',
    baseBackoffSeconds: 0,
    maxRetries: 0,
    maxDurationSeconds: 0,
    sameRegion: true,
  },
  environmentVariables: [],
  period: 5,
  periodUnit: 'minutes',
  grace: 1,
  graceUnit: 'minutes',
  pingToken: 'db-dump-token',
}

function capturingLogger(): { log: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return {
    log: createLogger({ level: 'info', scrubber: createScrubber([]), destination, pretty: false }),
    lines,
  }
}

describe('heartbeat service', () => {
  let dataDir: string
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outpost-hb-service-'))
  })
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  it('starts the ingress, logs each ping URL, and its probe sees the pings', async () => {
    const { log, lines } = capturingLogger()
    const service = await startHeartbeatService({
      dataDir,
      port: 0,
      host: '127.0.0.1',
      scrubber: createScrubber([]),
      log,
      checks: [check],
      ingress: true,
    })
    try {
      const url = `http://127.0.0.1:${service.port}/ping/db-dump-token`
      expect(service.pingUrls).toEqual([{ logicalId: 'db-dump', name: 'DB dump', url }])
      expect(lines.some((l) => l.msg === `heartbeat "DB dump": ping ${url}` && l.checkId === 'db-dump')).toBe(
        true,
      )
      expect((await fetch(url, { method: 'POST', body: 'ok' })).status).toBe(200)
      const outcome = await service.probe(check, {
        signal: AbortSignal.timeout(5000),
        log,
        runDir: dataDir,
        testSession: false,
      })
      expect(outcome.status).toBe('passed')
      expect(outcome.details?.heartbeat).toMatchObject({ status: 'up', pingCount: 1, lastBody: 'ok' })
    } finally {
      await service.close()
    }
  })

  it('without ingress (outpost test) reads the state read-only and opens no port', async () => {
    const { log } = capturingLogger()
    const service = await startHeartbeatService({
      dataDir,
      port: 1,
      host: '127.0.0.1',
      scrubber: createScrubber([]),
      log,
      checks: [check],
      ingress: false,
    })
    expect(service.port).toBeNull()
    expect(service.pingUrls).toEqual([])
    await service.close()
  })

  it('names the variable when the port is taken', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const address = blocker.address()
    const port = typeof address === 'object' && address ? address.port : 0
    try {
      const { log } = capturingLogger()
      await expect(
        startHeartbeatService({
          dataDir,
          port,
          host: '127.0.0.1',
          scrubber: createScrubber([]),
          log,
          checks: [check],
          ingress: true,
        }),
      ).rejects.toThrow(
        `heartbeat ingress cannot listen on 127.0.0.1:${port} (EADDRINUSE); set AGENT_HEARTBEAT_PORT`,
      )
    } finally {
      blocker.close()
    }
  })
})
