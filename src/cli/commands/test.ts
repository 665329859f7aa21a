// `outpost test`: every matched check once, as a test session, through the real agent machinery
// (queues, timeouts, scrubbing), with a reporter on stdout.

import { randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startAgent } from '../../agent/agent.ts'
import { loadOrCreateAgentId } from '../../agent/agent-id.ts'
import { createDefaultExecutors } from '../../agent/default-executors.ts'
import { createSessionSource } from '../../agent/session-source.ts'
import type { CheckDefinition } from '../../model/checks.ts'
import type { CheckResult } from '../../model/result.ts'
import { AGENT_VERSION } from '../../version.ts'
import { type AgentSetup, loadChecksOrExplain, resolveChecksDir, setUpAgent } from '../agent-setup.ts'
import { type CliIo, ExitCode } from '../io.ts'
import { junitReport } from '../reporters/junit.ts'
import { listProgressLine, listSummary } from '../reporters/list.ts'
import { runTestSessionOnHub } from '../test-on-hub.ts'

export const TEST_USAGE = `usage: outpost test [dir] [--grep <regex>] [--reporter list|json|junit] [--output <file>] [--location <code>] [--hub]

Runs each matched check in dir (default: ./checks when it exists, else examples/checks) once, as a
test session (CI=true inside Playwright runs), and reports.

Options:
  --grep <regex>       only checks whose logicalId or name matches
  --reporter <name>    list (default): progress and a summary counting passed, degraded, failed
                       json: one JSON array of CheckResult on stdout, nothing else
                       junit: JUnit XML on stdout (or in --output)
  --output <file>      write the json or junit report to a file instead of stdout
  --location <code>    location code put on the results (default: AGENT_LOCATION or "private");
                       with --hub, the private location whose agents run the session
  --hub                run the session on the agents of the hub at SERVICE_API_URL (API_KEY)
  -h, --help           show this help

Exit code: 0 none failed, 1 one or more failed, 2 usage or configuration error.`

const REPORTERS = ['list', 'json', 'junit'] as const
type Reporter = (typeof REPORTERS)[number]

interface TestOptions {
  dir?: string
  grep?: RegExp
  reporter: Reporter
  output?: string
  location?: string
  hub: boolean
}

export async function testCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = parseTestArgs(args, io)
  if (typeof parsed === 'number') return parsed
  const setup = await setUpAgent(io, {
    command: 'test',
    toStderr: true,
    defaultLevel: 'warn',
    overrides: parsed.location ? { AGENT_LOCATION: parsed.location } : {},
  })
  if (typeof setup === 'number') return setup

  const dir = resolveChecksDir(parsed.dir, io.cwd)
  const loaded = await loadChecksOrExplain(dir, io, 'test')
  if (typeof loaded === 'number') return loaded
  const checks = parsed.grep
    ? loaded.filter((c) => parsed.grep!.test(c.logicalId) || parsed.grep!.test(c.name))
    : loaded
  if (checks.length === 0) {
    io.stderr(
      `outpost test: no checks matched in ${dir}${parsed.grep ? ` (--grep ${parsed.grep.source})` : ''}\n`,
    )
    return ExitCode.failed
  }

  const started = Date.now()
  const progress = (result: CheckResult, done: number): void => {
    if (parsed.reporter === 'list') io.stdout(listProgressLine(result, done, checks.length))
  }
  const where = parsed.hub ? `on the hub at ${setup.config.serviceApiUrl}` : 'on this machine'
  if (parsed.reporter === 'list') io.stdout(`Running ${checks.length} check(s) from ${dir} ${where}\n`)
  let session: SessionRun
  if (parsed.hub) {
    const onHub = await runTestSessionOnHub({ config: setup.config, checks, location: parsed.location })
    if (typeof onHub === 'string') {
      io.stderr(`outpost test: ${onHub}\n`)
      return onHub.startsWith('set ') ? ExitCode.usage : ExitCode.failed
    }
    for (const [i, r] of onHub.results.entries()) progress(r, i + 1)
    session = { results: onHub.results, interrupted: false }
  } else {
    session = await runTestSessionHere(setup, checks, io, progress)
  }
  const durationMs = Date.now() - started
  const ordered = checks.flatMap((c) => session.results.filter((r) => r.checkId === c.logicalId))

  const report =
    parsed.reporter === 'json'
      ? `${JSON.stringify(ordered, null, 2)}\n`
      : parsed.reporter === 'junit'
        ? junitReport(ordered, durationMs)
        : listSummary(ordered, durationMs)
  if (parsed.output && parsed.reporter !== 'list') {
    await writeFile(path.resolve(io.cwd, parsed.output), report)
    io.stderr(`outpost test: ${parsed.reporter} report written to ${parsed.output}\n`)
  } else {
    io.stdout(report)
  }
  if (session.interrupted) return ExitCode.failed
  return ordered.some((r) => r.status === 'failed') ? ExitCode.failed : ExitCode.ok
}

interface SessionRun {
  results: CheckResult[]
  interrupted: boolean
}

/** The session on this machine: an agent of its own, without heartbeat ingress, beside any daemon. */
async function runTestSessionHere(
  setup: AgentSetup,
  checks: CheckDefinition[],
  io: CliIo,
  progress: (result: CheckResult, done: number) => void,
): Promise<SessionRun> {
  const { config, scrubber, log, errors } = setup
  const results: CheckResult[] = []
  let allDone: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    allDone = resolve
  })
  const executors = await createDefaultExecutors({
    config,
    log,
    scrubber,
    checks,
    heartbeatIngress: false,
    secretValues: setup.secretValues,
    env: io.env,
  })
  const agent = await startAgent({
    config,
    log,
    scrubber,
    source: createSessionSource(checks, randomUUID()),
    executors: executors.table,
    info: { id: await loadOrCreateAgentId(config.dataDir), version: AGENT_VERSION, flavor: config.flavor },
    healthServerOptional: true,
    reportError: (error) => errors.capture(error),
    sink: {
      async write(result) {
        results.push(result)
        progress(result, results.length)
        if (results.length === checks.length) allDone()
      },
      async flush() {},
    },
  })
  const interrupted = await waitOrInterrupt(done)
  if (interrupted) agent.stopNow()
  await agent.stop()
  await executors.close()
  return { results, interrupted }
}

function parseTestOptions(args: string[]) {
  return parseArgs({
    args,
    options: {
      grep: { type: 'string' },
      reporter: { type: 'string' },
      output: { type: 'string' },
      location: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      hub: { type: 'boolean' },
    },
    allowPositionals: true,
  })
}

function parseTestArgs(args: string[], io: CliIo): TestOptions | number {
  const fail = (message: string): number => {
    io.stderr(`outpost test: ${message}\n${TEST_USAGE}\n`)
    return ExitCode.usage
  }
  let parsed: ReturnType<typeof parseTestOptions>
  try {
    parsed = parseTestOptions(args)
  } catch (error) {
    return fail((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.stdout(`${TEST_USAGE}\n`)
    return ExitCode.ok
  }
  if (positionals.length > 1) return fail(`expected at most one directory, got ${positionals.join(' ')}`)
  const reporter = values.reporter ?? 'list'
  if (!REPORTERS.includes(reporter as Reporter)) {
    return fail(
      `--reporter ${JSON.stringify(reporter)} is not valid: expected one of ${REPORTERS.join(', ')}`,
    )
  }
  let grep: RegExp | undefined
  if (values.grep !== undefined) {
    try {
      grep = new RegExp(values.grep)
    } catch (error) {
      return fail(
        `--grep ${JSON.stringify(values.grep)} is not a valid regular expression: ${(error as Error).message}`,
      )
    }
  }
  if (values.location !== undefined && !/^[a-z0-9][a-z0-9-]{0,62}$/.test(values.location)) {
    return fail(`--location ${JSON.stringify(values.location)} is not valid: expected a code like us-east-1`)
  }
  return {
    dir: positionals[0],
    grep,
    reporter: reporter as Reporter,
    output: values.output,
    location: values.location,
    hub: values.hub === true,
  }
}

/** Resolves true when the user interrupts (SIGINT/SIGTERM) before the session is done. */
async function waitOrInterrupt(done: Promise<void>): Promise<boolean> {
  let onSignal: () => void = () => {}
  const interrupted = new Promise<boolean>((resolve) => {
    onSignal = () => resolve(true)
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
  })
  try {
    return await Promise.race([done.then(() => false), interrupted])
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}
