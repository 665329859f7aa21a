// The Playwright runner: Probes for multistep checks, browser checks and check suites, built from
// their dependencies. Importing this module does nothing; only the full agent flavor imports it.

import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type {
  BrowserCheck,
  CheckDefinition,
  MultiStepCheck,
  PlaywrightCheckSuite,
  RuntimeId,
} from '../model/checks.ts'
import type { Probe } from '../model/probe.ts'
import { createScrubber } from '../secrets/scrubber.ts'
import type { Logger } from '../telemetry/logger.ts'
import { buildChildEnv, checkSecretValues } from './child-env.ts'
import { runnerEnv, runPlaywrightCheck } from './playwright-run.ts'
import { type RuntimeStatus, verifyRuntimes } from './runtimes.ts'
import type { PackageManager } from './suite/package-manager.ts'
import { runSuite } from './suite/run-suite.ts'
import { createWarmPool } from './warm-pool.ts'

export type { RuntimeStatus } from './runtimes.ts'

export interface PlaywrightRunnerOptions {
  /** Directory holding runtimes/<id>/ (the repository's runtimes/, or /app/runtimes in the image). */
  runtimesDir: string
  /** The agent's data directory; suite installs are cached under it. */
  dataDir: string
  /** Configured secret values; read at every run, so the agent may add to the array. */
  secrets: { values: string[] }
  log: Logger
  /** Debian's chromium; Playwright's own browser downloads are never used. */
  chromiumPath: string
  /** The agent's environment. Only PATH, HOME, TMPDIR, LANG, TZ, proxies and NODE_EXTRA_CA_CERTS pass. */
  env: Record<string, string | undefined>
  /** V8 heap cap of every Node process of a run, in MB. Default 2048. */
  heapMb?: number
  /** SIGTERM to SIGKILL, when a run is stopped. Default 2000 ms. */
  graceMs?: number
  /** How often a long suite logs progress. Default 30000 ms. */
  progressEveryMs?: number
  /**
   * Secret values discovered while a run ran (process.env.SERVICE_SECRET_* assigned by the check, and
   * Authorization header values on runtime 2025.04+). The outcome is already scrubbed of them; the
   * agent adds them to its own scrubber so nothing logged later can carry them.
   */
  onSecrets?: (values: string[]) => void
  /**
   * Keep one pre-started Playwright process per runtime after its first run, so later runs skip
   * loading Playwright (see bench/multistep). Default true. Call close() at shutdown.
   */
  warm?: boolean
  /** Node's compile cache for runs, under dataDir/node-compile-cache (bounded). Default true. */
  compileCache?: boolean
  /** Package manager executables for suites. Default: npm from PATH; pnpm, yarn, bun from this package. */
  packageManagers?: Partial<Record<PackageManager, string>>
}

export interface PlaywrightRunner {
  multistep: Probe<MultiStepCheck>
  browser: Probe<BrowserCheck>
  suite: Probe<PlaywrightCheckSuite>
  /** Verifies every runtime now (and logs the broken ones); later runs use the result. */
  verifyRuntimes(): Promise<RuntimeStatus[]>
  /** Resolves when the warm process of a runtime (if one was started) has loaded Playwright. */
  warmReady(runtimeId: RuntimeId): Promise<void>
  /** Ends the idle warm processes. Runs in progress are not touched: they end by their own signal. */
  close(): Promise<void>
}

/** pnpm, yarn and bun come with the agent as npm dependencies (bun's package ships its binary). */
function bundledPackageManagers(): Partial<Record<PackageManager, string>> {
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.bin')
  return { pnpm: join(bin, 'pnpm'), yarn: join(bin, 'yarn'), bun: join(bin, 'bun') }
}

export function createPlaywrightRunner(options: PlaywrightRunnerOptions): PlaywrightRunner {
  let statuses: Promise<RuntimeStatus[]> | undefined
  const verify = async (): Promise<RuntimeStatus[]> => {
    statuses = verifyRuntimes(options.runtimesDir)
    const result = await statuses
    for (const s of result) {
      if (s.available)
        options.log.info({ runtimeId: s.id, playwright: s.playwrightVersion }, 'runtime available')
      else options.log.error({ runtimeId: s.id, missing: s.missing }, s.reason ?? 'runtime unavailable')
    }
    return result
  }
  const runtimeStatus = async (id: string) => (await (statuses ?? verify())).find((s) => s.id === id)
  const heapMb = options.heapMb ?? 2048
  const compileCacheDir =
    options.compileCache === false ? undefined : join(options.dataDir, 'node-compile-cache')
  const warmPool =
    options.warm === false
      ? undefined
      : createWarmPool({
          scratchDir: join(options.dataDir, 'warm-runners'),
          baseEnv: (markerValue, secretsFile, runtimeId) =>
            buildChildEnv({
              agentEnv: options.env,
              checkEnv: [],
              testSession: false,
              runnerEnv: runnerEnv(
                { heapMb, compileCacheDir },
                runtimeId as RuntimeId,
                markerValue,
                secretsFile,
              ),
            }),
        })
  const deps = {
    runtimeStatus,
    warmPool,
    secrets: options.secrets,
    chromiumPath: options.chromiumPath,
    agentEnv: options.env,
    heapMb,
    compileCacheDir,
    graceMs: options.graceMs ?? 2000,
    onSecrets: options.onSecrets,
  }
  // An unexpected error (disk full, a permission) fails the run with its reason; it never escapes to the agent.
  const guarded =
    <C extends CheckDefinition>(probe: Probe<C>): Probe<C> =>
    async (check, ctx) => {
      try {
        return await probe(check, ctx)
      } catch (err) {
        const scrubber = createScrubber([
          ...options.secrets.values,
          ...checkSecretValues(check.environmentVariables),
        ])
        const message = scrubber.text(err instanceof Error ? err.message : String(err))
        ctx.log.error({ checkId: check.logicalId, err: message }, 'Playwright runner failed')
        return { status: 'failed', error: { code: 'RUNNER_ERROR', message }, assertions: [] }
      }
    }
  return {
    multistep: guarded((check, ctx) => runPlaywrightCheck(deps, check, ctx)),
    browser: guarded((check, ctx) => runPlaywrightCheck(deps, check, ctx)),
    suite: guarded((check, ctx) =>
      runSuite(
        {
          dataDir: options.dataDir,
          secrets: options.secrets,
          agentEnv: options.env,
          graceMs: deps.graceMs,
          progressEveryMs: options.progressEveryMs ?? 30_000,
          onSecrets: options.onSecrets,
          packageManagers: { ...bundledPackageManagers(), ...options.packageManagers },
        },
        check,
        ctx,
      ),
    ),
    verifyRuntimes: verify,
    warmReady: async (runtimeId) => warmPool?.ready(runtimeId),
    close: async () => warmPool?.close(),
  }
}
