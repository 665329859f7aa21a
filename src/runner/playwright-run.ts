// One multistep or browser run: code into the run directory, Playwright Test in a process group of
// its own, then steps, output, request log and trace collected and scrubbed into a ProbeOutcome.

import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BrowserCheck, MultiStepCheck, RuntimeId } from '../model/checks.ts'
import { timeoutSecondsOf } from '../model/checks.ts'
import type { ProbeContext, ProbeOutcome } from '../model/probe.ts'
import type { ArtifactRef, LogLine, StepResult } from '../model/result.ts'
import { authorizationSecrets } from '../secrets/named-secrets.ts'
import { scrubDeep } from '../secrets/scrub-deep.ts'
import { createScrubber } from '../secrets/scrubber.ts'
import { artifactFor } from './artifacts.ts'
import { buildChildEnv, checkSecretValues } from './child-env.ts'
import { parseSecretFile, quoteNodeOption, readTextOrEmpty } from './collected-secrets.ts'
import { trimCompileCache } from './compile-cache.ts'
import { declaredStepNames } from './declared-steps.ts'
import { runConfigSource } from './playwright-config.ts'
import { CodeError, prepareCode } from './prepare-code.ts'
import { type GroupRunResult, runInProcessGroup, superviseGroup } from './process-group.ts'
import { mergeSteps, parseRunEvents } from './run-events.ts'
import { failureOf, runPhases } from './run-verdict.ts'
import { playwrightCli, type RuntimeStatus, scrubsAuthorization } from './runtimes.ts'
import { scrubZipInPlace } from './scrub-trace.ts'
import { authorizationValuesInTrace, type RequestLogEntry, requestLogFromTrace } from './trace-facts.ts'
import type { WarmPool } from './warm-pool.ts'
import { readZip, type ZipEntry } from './zip.ts'

const here = dirname(fileURLToPath(import.meta.url))
export const REPORTER_PATH = join(here, 'child', 'outpost-reporter.cjs')
export const SECRET_PROBE_PATH = join(here, 'child', 'secret-probe.cjs')

export interface RunDeps {
  runtimeStatus: (id: string) => Promise<RuntimeStatus | undefined>
  /** Configured secret values (agent SERVICE_SECRET_*, API_KEY); read at each run. */
  secrets: { values: string[] }
  chromiumPath: string
  agentEnv: Record<string, string | undefined>
  heapMb: number
  /** NODE_COMPILE_CACHE of every run; none when undefined. */
  compileCacheDir?: string
  graceMs: number
  onSecrets?: (values: string[]) => void
  /** Pre-started Playwright processes; runs start cold without one. */
  warmPool?: WarmPool
}

/** Runner plumbing in a run's environment; a warm process starts with the same. */
export function runnerEnv(
  deps: Pick<RunDeps, 'heapMb' | 'compileCacheDir'>,
  runtimeId: RuntimeId,
  markerValue: string,
  secretsFile: string,
): Record<string, string> {
  return {
    NODE_OPTIONS: `--max-old-space-size=${deps.heapMb} --require ${quoteNodeOption(SECRET_PROBE_PATH)}`,
    OUTPOST_SECRETS_FILE: secretsFile,
    ...(scrubsAuthorization(runtimeId) ? { OUTPOST_CAPTURE_AUTHORIZATION: '1' } : {}),
    OUTPOST_RUN_MARKER: markerValue,
    ...(deps.compileCacheDir ? { NODE_COMPILE_CACHE: deps.compileCacheDir } : {}),
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    FORCE_COLOR: '0',
  }
}

const failed = (code: string, message: string): ProbeOutcome => ({
  status: 'failed',
  error: { code, message },
  assertions: [],
})

export async function runPlaywrightCheck(
  deps: RunDeps,
  check: MultiStepCheck | BrowserCheck,
  ctx: ProbeContext,
): Promise<ProbeOutcome> {
  const runtime = await deps.runtimeStatus(check.runtimeId)
  if (!runtime)
    return failed('RUNTIME_UNAVAILABLE', `runtime '${check.runtimeId}' is not known to this agent`)
  if (!runtime.available)
    return failed('RUNTIME_UNAVAILABLE', runtime.reason ?? `runtime ${runtime.id} is broken`)

  const work = join(ctx.runDir, 'work')
  const outputDir = join(work, 'test-results')
  const eventsFile = join(work, 'events.ndjson')
  const configFile = join(work, 'outpost.playwright.config.cjs')
  await mkdir(work, { recursive: true })
  try {
    let code: Awaited<ReturnType<typeof prepareCode>>
    try {
      code = await prepareCode(check.code, join(work, 'code'), runtime.dir)
    } catch (err) {
      if (err instanceof CodeError) return failed('INVALID_CODE', err.message)
      throw err
    }
    const timeoutMs = timeoutSecondsOf(check) * 1000
    // Playwright's own timeout fires first, leaving time to start up before and to save the trace
    // after; the agent's kill at the job's timeout is the backstop for a run that hangs.
    const margin = Math.min(15_000, Math.max(2000, timeoutMs * 0.1))
    await writeFile(
      configFile,
      runConfigSource({
        testDir: code.testDir,
        specFile: code.specFile,
        outputDir,
        timeoutMs: Math.max(1000, timeoutMs - margin),
        reporterPath: REPORTER_PATH,
        eventsFile,
        chromiumPath: deps.chromiumPath,
      }),
    )
    const cli = await playwrightCli(runtime.dir)
    if (deps.compileCacheDir) await trimCompileCache(deps.compileCacheDir)
    const warm = deps.warmPool?.take(runtime.id, cli)
    const markerValue = warm?.markerValue ?? randomUUID()
    const secretsFile = warm?.secretsFile ?? join(work, 'secrets.ndjson')
    const env = buildChildEnv({
      agentEnv: deps.agentEnv,
      checkEnv: check.environmentVariables,
      testSession: ctx.testSession,
      runnerEnv: runnerEnv(deps, check.runtimeId, markerValue, secretsFile),
    })
    const args = ['test', '--config', configFile]
    const supervise = {
      signal: ctx.signal,
      graceMs: deps.graceMs,
      marker: `OUTPOST_RUN_MARKER=${markerValue}`,
    }
    const started = Date.now()
    let run: GroupRunResult
    if (warm) {
      const running = superviseGroup(warm.child, supervise)
      warm.start(work, args, env)
      run = await running
    } else {
      run = await runInProcessGroup({
        command: process.execPath,
        args: [cli, ...args],
        cwd: work,
        env,
        ...supervise,
      })
    }
    const exitedAt = Date.now()
    const elapsed = exitedAt - started
    const rawEvents = await readTextOrEmpty(eventsFile)
    // Unscrubbed, and used only for the paths of attachments; what goes in the result is parsed below.
    const attachments = parseRunEvents(rawEvents).tests.flatMap((t) => t.attachments)
    const collected = parseSecretFile(await readTextOrEmpty(secretsFile))
    await warm?.dispose()
    // The next warm process starts only now, so its start-up never slows a run down.
    void deps.warmPool?.refill(runtime.id, cli).catch((err: Error) => {
      ctx.log.warn({ runtimeId: runtime.id, err: err.message }, 'could not pre-start a Playwright runner')
    })

    // Traces first: the Authorization values they hold are secrets on 2025.04 and later.
    const traces = attachments.filter((a) => a.name === 'trace')
    const traceEntries: { path: string; entries: ZipEntry[] }[] = []
    for (const t of traces) {
      const entries = await readFile(t.path).then(readZip, () => undefined)
      if (entries) traceEntries.push({ path: t.path, entries })
    }
    const authorization = scrubsAuthorization(check.runtimeId)
      ? [
          ...collected.authorization,
          ...traceEntries.flatMap((t) => authorizationValuesInTrace(t.entries)),
        ].flatMap((header) => authorizationSecrets(header).map((secret) => secret.value))
      : []
    const secretValues = [
      ...deps.secrets.values,
      ...checkSecretValues(check.environmentVariables),
      ...collected.runtime,
      ...authorization,
    ]
    const scrubber = createScrubber(secretValues)
    const events = parseRunEvents(scrubber.text(rawEvents))
    const output = scrubber.text(run.output)
    const discovered = [...new Set([...collected.runtime, ...authorization])]
    if (discovered.length > 0) deps.onSecrets?.(discovered)

    const logs: LogLine[] = [...events.logs]
    const artifacts: ArtifactRef[] = []
    const requests: RequestLogEntry[] = []
    for (const [i, t] of traceEntries.entries()) {
      requests.push(...requestLogFromTrace(t.entries))
      try {
        await scrubZipInPlace(t.path, scrubber, work)
      } catch (err) {
        logs.push({
          time: new Date().toISOString(),
          level: 'error',
          message: `trace not kept: ${(err as Error).message}`,
        })
        continue
      }
      const name = i === 0 ? 'trace.zip' : `trace-${i + 1}.zip`
      const kept = join(ctx.runDir, name)
      await rename(t.path, kept)
      artifacts.push(await artifactFor(kept, name, 'trace'))
    }
    const screenshots = attachments.filter((a) => a.name === 'screenshot' && a.contentType === 'image/png')
    for (const [i, s] of screenshots.entries()) {
      const name = i === 0 ? 'screenshot-on-failure.png' : `screenshot-on-failure-${i + 1}.png`
      const kept = join(ctx.runDir, name)
      if (
        await rename(s.path, kept).then(
          () => true,
          () => false,
        )
      )
        artifacts.push(await artifactFor(kept, name, 'screenshot'))
    }

    const passed =
      !run.aborted &&
      events.tests.length > 0 &&
      events.tests.every((t) => t.status === 'passed' || t.status === 'skipped')
    const error = passed ? undefined : failureOf({ ...run, output }, events, timeoutMs, ctx.signal.reason)
    const steps: StepResult[] = mergeSteps(events, declaredStepNames(code.source), error?.message)
    if (!passed && events.tests.length === 0 && output.trim()) {
      logs.push({ time: new Date().toISOString(), level: 'error', message: output.trim().slice(-4000) })
    }
    if (traceEntries.length === 0 && !passed) {
      logs.push({
        time: new Date().toISOString(),
        level: 'warn',
        message: 'no trace was written: the run ended before its test did',
      })
    }
    ctx.log.debug(
      { runtimeId: check.runtimeId, exitCode: run.exitCode, elapsedMs: elapsed },
      'playwright run ended',
    )
    const phasesMs = runPhases(events, started, exitedAt)
    const outcome: ProbeOutcome = {
      status: passed ? 'passed' : 'failed',
      responseTimeMs: events.tests.reduce((sum, t) => sum + t.durationMs, 0) || elapsed,
      ...(error ? { error } : {}),
      assertions: [],
      steps,
      logs,
      artifacts,
      details: {
        runtimeId: check.runtimeId,
        playwrightVersion: runtime.playwrightVersion,
        requests,
        exitCode: run.exitCode,
        warmStart: warm !== undefined,
        phasesMs: { ...phasesMs, collect: Date.now() - exitedAt },
      },
    }
    return scrubDeep(outcome, scrubber)
  } finally {
    // The work directory holds unscrubbed output and the secrets file: it never outlives the run.
    await rm(work, { recursive: true, force: true })
  }
}
