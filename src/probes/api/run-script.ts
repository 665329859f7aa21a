// Runs a setup or teardown script the way multistep checks run: a Node process of its own in a new
// process group, the check's runtime for package imports, an environment built from nothing (no
// API_KEY), killed with everything it started at its timeout. Never throws for the script's faults.

import { randomUUID } from 'node:crypto'
import { mkdir, realpath, stat, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CheckCode, EnvironmentVariable, RuntimeId } from '../../model/checks.ts'
import type { LogLine } from '../../model/result.ts'
import { buildChildEnv } from '../../runner/child-env.ts'
import { parseSecretFile, quoteNodeOption, readTextOrEmpty } from '../../runner/collected-secrets.ts'
import { CodeError, prepareCode } from '../../runner/prepare-code.ts'
import { runInProcessGroup } from '../../runner/process-group.ts'
import { scrubsAuthorization } from '../../runner/runtimes.ts'

const here = dirname(fileURLToPath(import.meta.url))
export const SCRIPT_HOST_PATH = join(here, 'child', 'script-host.mjs')
const SECRET_PROBE_PATH = join(here, '..', '..', 'runner', 'child', 'secret-probe.cjs')

export type ScriptKind = 'setup' | 'teardown'

export interface ScriptRun {
  kind: ScriptKind
  code: CheckCode
  runtimeId: RuntimeId
  /** runtimes/ holding <runtimeId>/node_modules. */
  runtimesDir: string
  /** A fresh directory of this script's own (the code is copied here). */
  workDir: string
  /** `request`, and for a teardown `response`, as the script sees them. */
  state: { request: unknown; response?: unknown }
  agentEnv: Readonly<Record<string, string | undefined>>
  checkEnv: EnvironmentVariable[]
  testSession: boolean
  timeoutMs: number
  graceMs: number
  /** The job's signal: a stopped job stops the script too. */
  signal: AbortSignal
}

export interface ScriptOutcome {
  ok: boolean
  /** What the script left in `request` / `response` (when ok), and the variables it set. */
  state?: { request?: unknown; response?: unknown; env: Record<string, string> }
  error?: { code: string; message: string }
  /** console output, then any other output, unscrubbed: the caller scrubs the whole outcome. */
  logs: LogLine[]
  /** Values assigned to process.env.SERVICE_SECRET_* and, on 2025.04+, Authorization values sent. */
  discoveredSecrets: string[]
  durationMs: number
}

const MAX_OTHER_OUTPUT_CHARS = 16_000
const SCRIPT_EXIT_CODES: Readonly<Record<ScriptKind, string>> = {
  setup: 'SETUP_SCRIPT_FAILED',
  teardown: 'TEARDOWN_SCRIPT_FAILED',
}

export async function runApiScript(run: ScriptRun): Promise<ScriptOutcome> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const failed = (code: string, message: string, logs: LogLine[] = [], secrets: string[] = []) => ({
    ok: false,
    error: { code, message },
    logs,
    discoveredSecrets: secrets,
    durationMs: elapsed(),
  })
  const runtimeDir = join(run.runtimesDir, run.runtimeId)
  if (!(await isDirectory(join(runtimeDir, 'node_modules')))) {
    return failed(
      'RUNTIME_UNAVAILABLE',
      `runtime ${run.runtimeId} is not installed (${runtimeDir}/node_modules is missing); ` +
        `run scripts/install-runtimes ${run.runtimeId}`,
    )
  }
  const codeDir = join(run.workDir, 'code')
  let scriptFile: string
  try {
    scriptFile = await placeScript(run.code, run.kind, codeDir, runtimeDir)
  } catch (err) {
    if (err instanceof CodeError) return failed('INVALID_CODE', `${run.kind} script: ${err.message}`)
    throw err
  }
  const stateFile = join(run.workDir, 'state.json')
  const outFile = join(run.workDir, 'state.out.json')
  const consoleFile = join(run.workDir, 'console.ndjson')
  const secretsFile = join(run.workDir, 'secrets.ndjson')
  await writeFile(stateFile, JSON.stringify(run.state))
  const marker = randomUUID()
  const env = buildChildEnv({
    agentEnv: run.agentEnv,
    checkEnv: run.checkEnv,
    testSession: run.testSession,
    runnerEnv: {
      NODE_OPTIONS: `--max-old-space-size=512 --require ${quoteNodeOption(SECRET_PROBE_PATH)}`,
      OUTPOST_SECRETS_FILE: secretsFile,
      ...(scrubsAuthorization(run.runtimeId) ? { OUTPOST_CAPTURE_AUTHORIZATION: '1' } : {}),
      OUTPOST_RUN_MARKER: marker,
      FORCE_COLOR: '0',
    },
  })
  const limit = AbortSignal.timeout(run.timeoutMs)
  const signal = AbortSignal.any([run.signal, limit])
  const result = await runInProcessGroup({
    command: process.execPath,
    args: [SCRIPT_HOST_PATH, stateFile, scriptFile, outFile, consoleFile],
    cwd: codeDir,
    env,
    signal,
    graceMs: run.graceMs,
    marker: `OUTPOST_RUN_MARKER=${marker}`,
    keepChars: MAX_OTHER_OUTPUT_CHARS,
  })
  const logs = [...parseConsole(await readTextOrEmpty(consoleFile)), ...otherOutput(result.output)]
  const collected = parseSecretFile(await readTextOrEmpty(secretsFile))
  const secrets = [...collected.runtime, ...collected.authorization]
  const what = `${run.kind} script`
  if (result.spawnError)
    return failed(SCRIPT_EXIT_CODES[run.kind], `${what} did not start: ${result.spawnError}`)
  if (result.aborted) {
    if (limit.aborted && !run.signal.aborted) {
      return failed(
        'SCRIPT_TIMEOUT',
        `${what} did not finish within ${run.timeoutMs} ms and was stopped`,
        logs,
        secrets,
      )
    }
    return failed(
      'SCRIPT_STOPPED',
      `${what} was stopped: ${String(run.signal.reason ?? 'the job was stopped')}`,
      logs,
      secrets,
    )
  }
  const out = parseOut(await readTextOrEmpty(outFile))
  if (result.exitCode !== 0 || !out || out.error !== undefined) {
    const why = out?.error ?? `exited with ${result.exitSignal ?? `code ${result.exitCode}`}`
    return failed(SCRIPT_EXIT_CODES[run.kind], `${what} failed: ${why}`, logs, secrets)
  }
  return {
    ok: true,
    state: { request: out.request, response: out.response, env: stringRecord(out.env) },
    logs,
    discoveredSecrets: secrets,
    durationMs: elapsed(),
  }
}

/** `content` becomes a file of its own; an `entrypoint` runs from a copy of its directory. */
async function placeScript(
  code: CheckCode,
  kind: ScriptKind,
  codeDir: string,
  runtimeDir: string,
): Promise<string> {
  if (code.content !== undefined && code.entrypoint === undefined) {
    await mkdir(codeDir, { recursive: true })
    const file = join(codeDir, `${kind}-script.ts`)
    await writeFile(file, code.content)
    await symlink(await realpath(join(runtimeDir, 'node_modules')), join(codeDir, 'node_modules'), 'dir')
    return file
  }
  return (await prepareCode(code, codeDir, runtimeDir)).specFile
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  )
}

interface HostOut {
  request?: unknown
  response?: unknown
  env?: unknown
  error?: string
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof value !== 'object' || value === null) return out
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v
  return out
}

function parseOut(text: string): HostOut | undefined {
  if (!text) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === 'object' && parsed !== null ? (parsed as HostOut) : undefined
  } catch {
    return undefined
  }
}

const LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'warn', 'error'])

function parseConsole(text: string): LogLine[] {
  const lines: LogLine[] = []
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue
    try {
      const line = JSON.parse(raw) as Partial<LogLine>
      if (typeof line.message !== 'string' || typeof line.time !== 'string') continue
      const level = typeof line.level === 'string' && LEVELS.has(line.level) ? line.level : 'info'
      lines.push({ time: line.time, level: level as LogLine['level'], message: line.message })
    } catch {
      // A line cut short by a kill.
    }
  }
  return lines
}

/** Output not written through console (process.stdout.write, a child process, Node's own warnings). */
function otherOutput(output: string): LogLine[] {
  const text = output.trim()
  if (!text) return []
  return [{ time: new Date().toISOString(), level: 'info', message: text }]
}
