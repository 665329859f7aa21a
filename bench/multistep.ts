// bench/multistep: a 3-step multistep check run through the agent's Playwright runner, beside the same
// spec run by a bare `npx playwright test` (the baseline), in one run, against a loopback server.
// Prints each figure as a ratio to the baseline, and where the runner's seconds go.
// usage: bench/multistep [--runs 5] [--runtime 2026.04]

import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Writable } from 'node:stream'
import { parseArgs } from 'node:util'
import { type MultiStepCheck, RuntimeId } from '../src/model/checks.ts'
import { createPlaywrightRunner } from '../src/runner/index.ts'
import { createScrubber } from '../src/secrets/scrubber.ts'
import { createLogger } from '../src/telemetry/logger.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    runtime: { type: 'string', default: '2026.04' },
    help: { type: 'boolean', short: 'h' },
  },
})
if (values.help) {
  console.log('usage: bench/multistep [--runs 5] [--runtime 2026.04]')
  process.exit(0)
}
const runs = Math.max(1, Math.min(50, Number(values.runs)))
const runtimeId = values.runtime as RuntimeId
if (!RuntimeId.includes(runtimeId)) {
  console.error(`--runtime '${values.runtime}' is not one of ${RuntimeId.join(', ')}`)
  process.exit(2)
}
const root = resolve(import.meta.dirname, '..')
const runtimesDir = join(root, 'runtimes')

const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }))
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
const address = server.address()
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`

const spec = `import { test, expect } from '@playwright/test'
test('three steps', async ({ request }) => {
  for (const name of ['one', 'two', 'three']) {
    await test.step(name, async () => {
      const r = await request.get('${url}/' + name)
      expect(r.status()).toBe(200)
    })
  }
})
`
const work = await mkdtemp(join(tmpdir(), 'bench-multistep-'))
const bare = join(work, 'bare')
await mkdir(bare)
await writeFile(join(bare, 'check.spec.ts'), spec)
await symlink(join(runtimesDir, runtimeId, 'node_modules'), join(bare, 'node_modules'))

function timeCommand(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now()
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-2000)
    })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0
        ? resolveRun(performance.now() - started)
        : reject(new Error(`${command} exited ${code}: ${err}`)),
    )
  })
}

const nodeEnv = {
  ...process.env,
  // Node 24 first, so npx and Playwright run on the same Node as the agent.
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
}
const logger = createLogger({
  level: 'warn',
  scrubber: createScrubber([]),
  destination: new Writable({ write: (_c, _e, cb) => cb() }),
  pretty: false,
})
const runnerOptions = {
  runtimesDir,
  dataDir: join(work, 'data'),
  secrets: { values: [] },
  log: logger,
  chromiumPath: '/usr/bin/chromium',
  env: process.env,
}
const coldRunner = createPlaywrightRunner({ ...runnerOptions, warm: false, compileCache: false })
const cachedRunner = createPlaywrightRunner({ ...runnerOptions, warm: false, compileCache: true })
const warmRunner = createPlaywrightRunner({ ...runnerOptions, warm: true })
const check: MultiStepCheck = {
  type: 'MULTI_STEP',
  logicalId: 'bench',
  name: 'bench',
  activated: true,
  muted: false,
  tags: [],
  frequencySeconds: 60,
  locations: [],
  privateLocations: [],
  retryStrategy: {
    type: 'NONE',
    baseBackoffSeconds: 0,
    maxRetries: 0,
    maxDurationSeconds: 0,
    sameRegion: false,
  },
  environmentVariables: [],
  code: { content: spec },
  runtimeId,
}
let runIndex = 0
const phaseFigures = {
  cold: {} as Record<string, number[]>,
  cached: {} as Record<string, number[]>,
  warm: {} as Record<string, number[]>,
}
async function throughRunner(runner: typeof coldRunner): Promise<number> {
  // A warm runner is pre-started after each run; wait for it so it competes with no measurement.
  await runner.warmReady(runtimeId)
  const started = performance.now()
  const runDir = join(work, 'runs', String(runIndex++))
  const out = await runner.multistep(check, {
    signal: new AbortController().signal,
    log: logger,
    runDir,
    testSession: false,
  })
  if (out.status !== 'passed') throw new Error(`runner run failed: ${JSON.stringify(out.error)}`)
  const took = performance.now() - started
  const phases = (out.details?.phasesMs ?? {}) as Record<string, number>
  const into =
    runner === coldRunner
      ? phaseFigures.cold
      : runner === cachedRunner
        ? phaseFigures.cached
        : phaseFigures.warm
  for (const [name, value] of Object.entries(phases)) into[name] = [...(into[name] ?? []), value]
  return took
}

const cli = join(runtimesDir, runtimeId, 'node_modules', '@playwright', 'test', 'cli.js')
const figures = {
  baseline: [] as number[],
  cold: [] as number[],
  cached: [] as number[],
  warm: [] as number[],
  bareNode: [] as number[],
  bareNodeTrace: [] as number[],
}
await coldRunner.verifyRuntimes()
await warmRunner.verifyRuntimes()
await throughRunner(coldRunner) // fill the file cache for every side
await throughRunner(cachedRunner) // and the compile cache
await throughRunner(warmRunner) // and leave a warm runner behind
for (let i = 0; i < runs; i++) {
  figures.baseline.push(await timeCommand('npx', ['playwright', 'test'], bare, nodeEnv))
  figures.cold.push(await throughRunner(coldRunner))
  figures.cached.push(await throughRunner(cachedRunner))
  figures.warm.push(await throughRunner(warmRunner))
  figures.bareNode.push(await timeCommand(process.execPath, [cli, 'test'], bare, nodeEnv))
  figures.bareNodeTrace.push(
    await timeCommand(process.execPath, [cli, 'test', '--trace', 'on'], bare, nodeEnv),
  )
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}
const base = median(figures.baseline)
const line = (label: string, xs: number[]) =>
  console.log(
    `${label.padEnd(70)} ${median(xs).toFixed(0).padStart(6)} ms  ${(median(xs) / base).toFixed(2)}x`,
  )
console.log(`bench/multistep: 3-step check, runtime ${runtimeId}, median of ${runs} runs each`)
line('baseline: npx playwright test (bare)', figures.baseline)
line('agent runner, cold start (trace on, reporter, scrub, artifacts)', figures.cold)
line('agent runner, cold start + Node compile cache', figures.cached)
line('agent runner, warm Playwright per runtime + compile cache (default)', figures.warm)
line('  where it goes: node cli.js test (no npx)', figures.bareNode)
line('  where it goes: node cli.js test --trace on', figures.bareNodeTrace)
for (const kind of ['cold', 'cached', 'warm'] as const) {
  const parts = Object.entries(phaseFigures[kind]).map(([name, xs]) => `${name} ${median(xs).toFixed(0)}`)
  console.log(`  ${kind} runner phases (ms, median): ${parts.join(', ')}`)
}
console.log(
  `ratio runner/baseline: cold ${(median(figures.cold) / base).toFixed(2)}x, compile cache ${(median(figures.cached) / base).toFixed(2)}x, default (warm + cache) ${(median(figures.warm) / base).toFixed(2)}x (target <= 1.10x)`,
)
await warmRunner.close()

server.close()
await rm(work, { recursive: true, force: true })
