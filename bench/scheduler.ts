// bench/scheduler: 10,000 scheduled no-op checks through the real agent (local source, scheduler,
// light queue, results.ndjson), measuring start lag against due time, event-loop lag, and
// /-/readiness latency from a separate process, beside the same latency on an idle agent.
// usage: bench/scheduler [--checks 10000] [--seconds 60]

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { startAgent } from '../src/agent/agent.ts'
import type { Executor } from '../src/agent/executors.ts'
import { createLocalSource } from '../src/agent/local-source.ts'
import { stableOffsetMs } from '../src/agent/schedule-math.ts'
import { loadAgentConfig } from '../src/config/agent-config.ts'
import type { CheckDefinition } from '../src/model/checks.ts'
import { createScrubber } from '../src/secrets/scrubber.ts'
import { createLogger } from '../src/telemetry/logger.ts'
import { urlCheck } from '../test/helpers/definitions.ts'
import { runScript } from './lib/child.ts'
import { ms, percentile, ratio } from './lib/stats.ts'

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '60' },
    help: { type: 'boolean', short: 'h' },
  },
})
if (values.help) {
  console.log('usage: bench/scheduler [--checks 10000] [--seconds 60]')
  process.exit(0)
}
const checkCount = Number(values.checks)
const seconds = Number(values.seconds)
const PERIOD_SECONDS = 60

interface Readiness {
  count: number
  p50: number
  p99: number
  max: number
  statuses: Record<string, number>
}

function makeChecks(n: number): CheckDefinition[] {
  return Array.from({ length: n }, (_, i) => urlCheck(`bench-${i}`, { frequencySeconds: PERIOD_SECONDS }))
}

async function phase(name: string, checks: CheckDefinition[], execute: Executor, measureSeconds: number) {
  const dataDir = await mkdtemp(path.join(tmpdir(), `outpost-bench-${name}-`))
  const config = loadAgentConfig(
    { AGENT_HEALTH_PORT: '0', AGENT_LISTEN_HOST: '127.0.0.1', AGENT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    dataDir,
  )
  const scrubber = createScrubber([])
  const log = createLogger({ level: 'warn', scrubber, pretty: false })
  const agent = await startAgent({
    config,
    log,
    scrubber,
    source: createLocalSource({ checks }),
    executors: { URL: execute },
    info: { id: 'bench', version: 'bench', flavor: 'full' },
  })
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  const readiness: Readiness = JSON.parse(
    await runScript('readiness-client.ts', [
      `http://127.0.0.1:${agent.healthPort}/-/readiness`,
      String(measureSeconds),
    ]),
  )
  loop.disable()
  const depth = (await agent.metrics.registry.getSingleMetric('outpost_queue_depth')?.get())?.values ?? []
  await agent.stop()
  await rm(dataDir, { recursive: true, force: true })
  return {
    readiness,
    loopP50: loop.percentile(50) / 1e6,
    loopP99: loop.percentile(99) / 1e6,
    lightDepth: depth.find((v) => v.labels.queue === 'light')?.value ?? 0,
  }
}

const periodMs = PERIOD_SECONDS * 1000
const checks = makeChecks(checkCount)
const offsets = new Map(checks.map((c) => [c.logicalId, stableOffsetMs(c.logicalId, periodMs)]))

console.log(
  `bench/scheduler: ${checkCount} checks every ${PERIOD_SECONDS} s; measuring ${seconds} s per loaded phase`,
)

const idle = await phase(
  'idle',
  [],
  async () => ({ status: 'passed', assertions: [] }),
  Math.min(15, seconds),
)

// No-op checks: the lag between a run's due time (its point on the grid) and its executor starting.
const lags: number[] = []
const noop: Executor = async (check) => {
  const offset = offsets.get(check.logicalId)!
  lags.push((((Date.now() - offset) % periodMs) + periodMs) % periodMs)
  return { status: 'passed', assertions: [] }
}
const scheduled = await phase('scheduled', checks, noop, seconds)

// Saturated: every run waits 2 s on a timer (an I/O-bound probe), far more than 100 slots hold.
const slow: Executor = (_check, ctx) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ status: 'passed', assertions: [] }), 2000)
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve({ status: 'failed', assertions: [] })
    })
  })
const saturated = await phase('saturated', checks, slow, Math.min(30, seconds))

const startLagP50 = percentile(lags, 50)
const startLagP99 = percentile(lags, 99)
console.log(`
runs started (scheduled phase): ${lags.length}
start lag vs due time:     p50 ${ms(startLagP50)}   p99 ${ms(startLagP99)}   (target p99 < 20 ms: ${startLagP99 < 20 ? 'met' : 'MISSED'})
event-loop lag (scheduled): p50 ${ms(scheduled.loopP50)}   p99 ${ms(scheduled.loopP99)}
event-loop lag (saturated): p50 ${ms(saturated.loopP50)}   p99 ${ms(saturated.loopP99)}   light queue depth at end: ${saturated.lightDepth}

/-/readiness latency      p50         p99         ratio p99 vs idle
  idle agent              ${ms(idle.readiness.p50).padEnd(11)} ${ms(idle.readiness.p99).padEnd(11)} 1.00x (baseline, ${idle.readiness.count} requests)
  10k scheduled no-op     ${ms(scheduled.readiness.p50).padEnd(11)} ${ms(scheduled.readiness.p99).padEnd(11)} ${ratio(scheduled.readiness.p99, idle.readiness.p99)}
  light queue saturated   ${ms(saturated.readiness.p50).padEnd(11)} ${ms(saturated.readiness.p99).padEnd(11)} ${ratio(saturated.readiness.p99, idle.readiness.p99)}
targets: readiness p99 < 5 ms (${saturated.readiness.p99 < 5 ? 'met' : 'MISSED'}) and within 2x of idle (${saturated.readiness.p99 <= 2 * idle.readiness.p99 ? 'met' : 'MISSED'})`)
process.exit(0)
