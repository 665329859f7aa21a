// A Playwright check suite: the user's own directory (playwright.config.*, package.json, lockfile) run
// with the user's own Playwright. Dependencies come from the install cache; the suite runs from a
// copy in the run directory, with our reporter added beside a JSON report kept as an artifact.

import { randomUUID } from 'node:crypto'
import { cp, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join } from 'node:path'
import type { PlaywrightCheckSuite } from '../../model/checks.ts'
import type { ProbeContext, ProbeOutcome } from '../../model/probe.ts'
import type { ArtifactRef } from '../../model/result.ts'
import { scrubDeep } from '../../secrets/scrub-deep.ts'
import { createScrubber } from '../../secrets/scrubber.ts'
import { artifactFor } from '../artifacts.ts'
import { buildChildEnv, checkSecretValues } from '../child-env.ts'
import { parseSecretFile, quoteNodeOption, readTextOrEmpty } from '../collected-secrets.ts'
import { REPORTER_PATH, SECRET_PROBE_PATH } from '../playwright-run.ts'
import { runInProcessGroup } from '../process-group.ts'
import { parseRunEvents } from '../run-events.ts'
import { scrubZipInPlace } from '../scrub-trace.ts'
import { ensureInstalled } from './install-cache.ts'
import { detectLockfile, LOCKFILE_NAMES, type PackageManager } from './package-manager.ts'
import { lastLineOf, suiteFailure, suiteSteps, suiteTests } from './suite-verdict.ts'

export interface SuiteDeps {
  dataDir: string
  secrets: { values: string[] }
  agentEnv: Record<string, string | undefined>
  graceMs: number
  progressEveryMs: number
  /** Executables of the package managers; npm is looked up on PATH when not given. */
  packageManagers: Partial<Record<PackageManager, string>>
  onSecrets?: (values: string[]) => void
}

const failed = (code: string, message: string, extra: Partial<ProbeOutcome> = {}): ProbeOutcome => ({
  status: 'failed',
  error: { code, message },
  assertions: [],
  ...extra,
})

const SKIPPED = new Set(['node_modules', '.git', 'test-results', 'playwright-report'])

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

export async function runSuite(
  deps: SuiteDeps,
  check: PlaywrightCheckSuite,
  ctx: ProbeContext,
): Promise<ProbeOutcome> {
  const configPath = check.playwrightConfigPath
  if (!isAbsolute(configPath)) {
    return failed('INVALID_SUITE', `playwrightConfigPath '${configPath}' is not an absolute path`)
  }
  if (!/^playwright\.config\.(ts|js|mjs|cjs|mts|cts)$/.test(basename(configPath))) {
    return failed(
      'INVALID_SUITE',
      `playwrightConfigPath '${configPath}' must name a playwright.config.{ts,js,mjs,cjs,mts,cts} file`,
    )
  }
  const suiteDir = dirname(configPath)
  if (
    !(await stat(configPath).then(
      (s) => s.isFile(),
      () => false,
    ))
  ) {
    return failed('INVALID_SUITE', `playwrightConfigPath '${configPath}' does not exist`)
  }
  const choice = await detectLockfile(suiteDir)
  if (!choice) {
    return failed(
      'INVALID_SUITE',
      `suite ${suiteDir} has no lockfile; expected one of ${LOCKFILE_NAMES.join(', ')}`,
    )
  }

  const secretValues = [...deps.secrets.values, ...checkSecretValues(check.environmentVariables)]
  const started = Date.now()
  const work = join(ctx.runDir, 'work')
  await mkdir(work, { recursive: true })
  const env = (extra: Record<string, string>) =>
    buildChildEnv({
      agentEnv: {
        ...deps.agentEnv,
        // Node 24 first, so npm, npx and the package managers' Node scripts all run on it.
        PATH: [dirname(process.execPath), deps.agentEnv.PATH ?? '/usr/bin:/bin'].join(':'),
      },
      checkEnv: check.environmentVariables,
      testSession: ctx.testSession,
      runnerEnv: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', FORCE_COLOR: '0', ...extra },
    })
  let lastLine = ''
  const progress = setInterval(() => {
    ctx.log.info(
      {
        checkId: check.logicalId,
        elapsedMs: Date.now() - started,
        lastLine: createScrubber(secretValues).text(lastLine),
      },
      'check suite still running',
    )
  }, deps.progressEveryMs)
  const onOutput = (chunk: string) => {
    const line = lastLineOf(chunk)
    if (line) lastLine = line
  }

  try {
    // 1. dependencies, from the cache or installed now
    const manager = deps.packageManagers[choice.manager] ?? choice.manager
    let install: Awaited<ReturnType<typeof ensureInstalled>>
    try {
      install = await ensureInstalled({
        cacheDir: join(deps.dataDir, 'suite-installs'),
        suiteDir,
        choice,
        installCommand: check.installCommand,
        install: async (dir) => {
          const [command, args] = check.installCommand
            ? ['/bin/sh', ['-c', check.installCommand]]
            : [manager, choice.installArgs]
          const result = await runInProcessGroup({
            command,
            args,
            cwd: dir,
            env: env({}),
            signal: ctx.signal,
            graceMs: deps.graceMs,
            marker: `OUTPOST_RUN_MARKER=${randomUUID()}`,
            onOutput,
          })
          if (result.aborted) throw new Error('the install was stopped at the timeout')
          if (result.exitCode !== 0) {
            const tail = result.output.trim().split('\n').slice(-8).join('\n')
            throw new Error(
              `${check.installCommand ?? `${choice.manager} ${choice.installArgs.join(' ')}`} exited with ${result.spawnError ?? `code ${result.exitCode}`}: ${tail}`,
            )
          }
        },
      })
    } catch (err) {
      const message = `installing the suite's dependencies with ${choice.manager} (${choice.lockfile}) failed: ${(err as Error).message}`
      return scrubDeep(failed('INSTALL_FAILED', message), createScrubber(secretValues))
    }
    ctx.log.info(
      { checkId: check.logicalId, manager: choice.manager, cached: install.cached },
      'suite dependencies ready',
    )

    // 2. the suite from a copy, so a run cannot write into the user's directory
    const copy = join(work, 'suite')
    await cp(suiteDir, copy, { recursive: true, filter: (src) => !SKIPPED.has(basename(src)) })
    await symlink(install.nodeModules, join(copy, 'node_modules'), 'dir')
    const eventsFile = join(work, 'events.ndjson')
    const secretsFile = join(work, 'secrets.ndjson')
    const reportFile = join(work, 'report.json')
    const flags = [
      '--config',
      join(copy, basename(configPath)),
      '--output',
      join(work, 'test-results'),
      '--trace',
      'retain-on-failure',
      `--reporter=${REPORTER_PATH},json`,
      ...check.pwProjects.flatMap((p) => ['--project', p]),
      ...(check.pwTags.length > 0
        ? ['--grep', check.pwTags.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')]
        : []),
    ]
    const cli = join(copy, 'node_modules', '@playwright', 'test', 'cli.js')
    const [command, args] = check.testCommand
      ? ['/bin/sh', ['-c', `${check.testCommand} ${flags.map(shellQuote).join(' ')}`]]
      : [process.execPath, [cli, 'test', ...flags]]
    const run = await runInProcessGroup({
      command,
      args,
      cwd: copy,
      env: env({
        OUTPOST_REPORTER_FILE: eventsFile,
        OUTPOST_SECRETS_FILE: secretsFile,
        PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile,
        NODE_OPTIONS: `--require ${quoteNodeOption(SECRET_PROBE_PATH)}`,
      }),
      signal: ctx.signal,
      graceMs: deps.graceMs,
      marker: `OUTPOST_RUN_MARKER=${randomUUID()}`,
      onOutput,
    })

    // 3. per-test outcomes, the report and failure traces, all scrubbed
    const rawEvents = await readTextOrEmpty(eventsFile)
    const runtimeSecrets = parseSecretFile(await readTextOrEmpty(secretsFile)).runtime
    if (runtimeSecrets.length > 0) deps.onSecrets?.(runtimeSecrets)
    const allSecrets = [...secretValues, ...runtimeSecrets]
    const scrubber = createScrubber(allSecrets)
    // Scrubbed before parsing, since parsing shortens long lines and a cut must not split a secret.
    const events = parseRunEvents(scrubber.text(rawEvents))
    const output = scrubber.text(run.output)
    const artifacts: ArtifactRef[] = []
    const report = await readFile(reportFile, 'utf8').catch(() => undefined)
    if (report !== undefined) {
      const kept = join(ctx.runDir, 'report.json')
      await writeFile(kept, scrubber.text(report))
      artifacts.push(await artifactFor(kept, 'report.json', 'report'))
    }
    let traceCount = 0
    for (const t of events.tests) {
      for (const a of t.attachments.filter((x) => x.name === 'trace')) {
        const ok = await scrubZipInPlace(a.path, scrubber, work).then(
          () => true,
          () => false,
        )
        if (!ok) continue
        traceCount++
        const name = `trace-${traceCount}.zip`
        await rename(a.path, join(ctx.runDir, name))
        artifacts.push(await artifactFor(join(ctx.runDir, name), name, 'trace'))
      }
    }
    const error = suiteFailure(run, events, output, Date.now() - started)
    const logs = [...events.logs]
    if (error && events.tests.length === 0 && output.trim()) {
      logs.push({ time: new Date().toISOString(), level: 'error', message: output.trim().slice(-4000) })
    }
    const outcome: ProbeOutcome = {
      status: error ? 'failed' : 'passed',
      responseTimeMs: Date.now() - started,
      ...(error ? { error } : {}),
      assertions: [],
      steps: suiteSteps(events.tests),
      logs,
      artifacts,
      details: {
        packageManager: choice.manager,
        installCached: install.cached,
        tests: suiteTests(events.tests),
        exitCode: run.exitCode,
      },
    }
    return scrubDeep(outcome, scrubber)
  } finally {
    clearInterval(progress)
    await rm(work, { recursive: true, force: true })
  }
}
